/**
 * Leases on the limited agents' allowances (docs/adr/0016-exact-limits-across-replicas.md): per
 * agent, this replica holds a block of units reserved in the counter rows and serves from it
 * without a round trip; when half of the block is gone it reserves the next one in the background.
 * With the block empty a request waits for one statement that counts it (if the limits allow) and
 * reserves what comes next. Blocks shrink as the window fills (a fraction of what is free), so the
 * last units go one request at a time and every replica decides on the same rows.
 *
 * A tick settles what was served (reserved → count, so the dashboard sees it within a tick), gives
 * back the blocks of agents idle since the last tick and of windows or limits that no longer
 * apply; close() gives every block back. One statement per agent at a time from this replica.
 */
import type { Logger } from '@pag/kit';
import type { LeaseAnswer, LeaseSettlement } from '../domain/usage-lease.ts';
import { UsageLease } from '../domain/usage-lease.ts';
import type { UsageCounts, UsageLimits, UsageWindows } from '../domain/usage-windows.ts';
import type { AgentKey } from './pending-counts.ts';

/** One call of gateway.lease_usage. */
export interface LeaseRequest {
  key: AgentKey;
  windows: UsageWindows;
  limits: UsageLimits;
  settlement: LeaseSettlement;
  take: 0 | 1;
  maxBlock: number;
  spread: number;
}

export type LeaseStatement = (request: LeaseRequest) => Promise<LeaseAnswer>;

/** A limited agent's request, decided. */
export interface LimitDecision {
  served: boolean;
  /** Served in each window, as this replica knows it (this request included when served). */
  used: UsageCounts;
  /** Left in each window (Infinity without a limit). */
  remaining: UsageCounts;
  /** Refused because every unit of a broken limit was served (not merely held by other replicas). */
  final: boolean;
}

export interface UsageLeasesOptions {
  /** The largest block one replica reserves ahead. */
  maxBlock: number;
  /** A block is at most 1/spread of what is free. */
  spread: number;
  logger: Logger;
}

interface Held {
  lease: UsageLease;
  /** The statement under way for this agent, if any. */
  turn: Promise<void> | undefined;
}

export class UsageLeases {
  readonly #statement: LeaseStatement;
  readonly #options: UsageLeasesOptions;
  readonly #held = new Map<string, Held & { key: AgentKey }>();
  /** Blocks being given back (old windows, changed limits), awaited by close(). */
  readonly #releasing = new Set<Promise<void>>();

  constructor(statement: LeaseStatement, options: UsageLeasesOptions) {
    this.#statement = statement;
    this.#options = options;
  }

  /** Serves from the block when it can, else waits for the rows' answer. */
  async take(key: AgentKey, windows: UsageWindows, limits: UsageLimits, at: Date): Promise<LimitDecision> {
    const id = `${key.accountId}\n${key.clientId}`;
    let held = this.#held.get(id);
    if (held !== undefined && !held.lease.fits(windows, limits)) {
      this.#retire(held);
      held = undefined;
    }
    if (held === undefined) {
      held = { key, lease: new UsageLease(windows, limits), turn: undefined };
      this.#held.set(id, held);
    }
    for (;;) {
      if (held.lease.tryServe(at)) {
        if (held.lease.wantsRenewal() && held.turn === undefined) void this.#renew(held);
        return decided(held.lease, true);
      }
      if (held.turn === undefined) break;
      // Another request or a renewal is asking already: its block may serve this one too.
      await held.turn.catch(() => undefined);
      if (this.#held.get(id) !== held) return this.take(key, windows, limits, at);
    }
    // Every unit of a limit was served (none merely held elsewhere): no statement can change that.
    if (held.lease.servedOut()) return decided(held.lease, false);
    const answer = await this.#turn(held, 'take');
    return decided(held.lease, answer.taken === 1);
  }

  /** Settles what was served, gives back idle blocks and those of past windows. */
  async tick(windows: UsageWindows): Promise<void> {
    const turns: Promise<unknown>[] = [];
    for (const held of this.#held.values()) {
      const { lease } = held;
      const past =
        lease.windows.day.start !== windows.day.start || lease.windows.month.start !== windows.month.start;
      if (past || !lease.usedSinceTick) {
        if (held.turn === undefined) this.#retire(held);
        continue;
      }
      lease.usedSinceTick = false;
      if (lease.served > 0 && held.turn === undefined)
        turns.push(this.#turn(held, 'settle').catch(() => undefined));
    }
    await Promise.all([...turns, ...this.#releasing]);
  }

  /** Settles what was served, so the counters show it (before a usage report). */
  async settle(): Promise<void> {
    const settleOne = async (held: Held & { key: AgentKey }) => {
      await held.turn?.catch(() => undefined);
      if (held.lease.served > 0 && held.turn === undefined) await this.#turn(held, 'settle');
    };
    await Promise.all([...this.#held.values()].map((held) => settleOne(held).catch(() => undefined)));
  }

  /** Gives every block back and settles what was served (graceful shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.#held.values()].map((held) => held.turn?.catch(() => undefined)));
    for (const held of [...this.#held.values()]) this.#retire(held);
    await Promise.all(this.#releasing);
  }

  #renew(held: Held & { key: AgentKey }): Promise<void> {
    return this.#turn(held, 'renew').then(
      () => undefined,
      () => undefined, // logged by #turn; the next request that finds the block empty asks again
    );
  }

  /** Drops the lease from the map and gives its block back in the background. */
  #retire(held: Held & { key: AgentKey }): void {
    const id = `${held.key.accountId}\n${held.key.clientId}`;
    if (this.#held.get(id) === held) this.#held.delete(id);
    const { lease } = held;
    if (lease.available === 0 && lease.served === 0) return;
    const after = held.turn?.catch(() => undefined) ?? Promise.resolve();
    const release = after
      .then(() => this.#turn(held, 'release'))
      .then(
        () => undefined,
        () => undefined,
      );
    this.#releasing.add(release);
    void release.finally(() => this.#releasing.delete(release));
  }

  /**
   * One statement for this agent, settling what its block served: `take` counts a waiting request
   * and reserves the next block, `renew` reserves the next block, `settle` only settles, `release`
   * also gives the rest of the block back.
   */
  async #turn(
    held: Held & { key: AgentKey },
    mode: 'take' | 'renew' | 'settle' | 'release',
  ): Promise<LeaseAnswer> {
    const { lease, key } = held;
    const settlement = lease.settlement(mode === 'release');
    const { maxBlock, spread } = this.#options;
    const pending = this.#statement({
      key,
      windows: lease.windows,
      limits: lease.limits,
      settlement,
      take: mode === 'take' ? 1 : 0,
      maxBlock: mode === 'take' || mode === 'renew' ? maxBlock : 0,
      spread,
    });
    const turn = pending.then(
      (answer) => lease.apply(answer),
      (error: unknown) => {
        lease.restore(settlement);
        this.#options.logger.warn({ err: error, agent: key.clientId }, 'usage lease statement failed');
        throw error;
      },
    );
    held.turn = turn;
    try {
      await turn;
    } finally {
      if (held.turn === turn) held.turn = undefined;
    }
    return pending;
  }
}

function decided(lease: UsageLease, served: boolean): LimitDecision {
  return { served, used: lease.used(), remaining: lease.remaining(), final: !served && lease.servedOut() };
}
