/**
 * Requests counted in memory until the next flush, summed per (account, agent, window). Each
 * request is filed under the windows it fell in, so a flush just after midnight still adds the
 * last requests of yesterday to yesterday's row.
 */
import type { UsageWindows } from '../domain/usage-windows.ts';

export interface AgentKey {
  accountId: string;
  clientId: string;
}

/** One counter row's increment. */
export interface CountDelta {
  accountId: string;
  clientId: string;
  kind: 'day' | 'month';
  /** YYYY-MM-DD. */
  windowStart: string;
  count: number;
  /** The latest request among them. */
  lastAt: Date;
}

export class PendingCounts {
  #deltas = new Map<string, CountDelta>();

  get size(): number {
    return this.#deltas.size;
  }

  add(key: AgentKey, windows: UsageWindows, at: Date): void {
    // Every counted request comes here: a delta object is made only for a row not pending yet.
    this.#countOne(key, 'day', windows.day.start, at);
    this.#countOne(key, 'month', windows.month.start, at);
  }

  #countOne(key: AgentKey, kind: CountDelta['kind'], windowStart: string, at: Date): void {
    const { accountId, clientId } = key;
    const known = this.#deltas.get(deltaId(accountId, clientId, kind, windowStart));
    if (known === undefined) {
      this.#merge({ accountId, clientId, kind, windowStart, count: 1, lastAt: at });
      return;
    }
    known.count += 1;
    if (at > known.lastAt) known.lastAt = at;
  }

  /**
   * Takes every delta out, ordered by the counter table's key: writers that lock rows in key
   * order cannot deadlock each other.
   */
  drain(): CountDelta[] {
    const deltas = [...this.#deltas.values()];
    this.#deltas = new Map();
    const order = (d: CountDelta) => [d.accountId, d.clientId, d.kind, d.windowStart];
    return deltas.sort((a, b) => compare(order(a), order(b)));
  }

  /** Puts deltas back after a failed write, to be written with the next flush. */
  restore(deltas: readonly CountDelta[]): void {
    for (const delta of deltas) this.#merge(delta);
  }

  #merge(delta: CountDelta): void {
    const id = deltaId(delta.accountId, delta.clientId, delta.kind, delta.windowStart);
    const known = this.#deltas.get(id);
    if (known === undefined) {
      this.#deltas.set(id, { ...delta });
      return;
    }
    known.count += delta.count;
    if (delta.lastAt > known.lastAt) known.lastAt = delta.lastAt;
  }
}

function deltaId(accountId: string, clientId: string, kind: string, windowStart: string): string {
  return `${accountId}\n${clientId}\n${kind}\n${windowStart}`;
}

function compare(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
