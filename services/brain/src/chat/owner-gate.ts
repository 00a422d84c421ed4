/**
 * The per-owner cap on chat requests in progress (CHAT_OWNER_CONCURRENCY), so one owner's agents
 * cannot tie up the provider (and its bill) with many long completions at once. Over the cap the
 * request is refused at once with 429 RATE_LIMITED and a Retry-After hint rather than queued: a
 * queued chat would hold the gateway's connection for a wait nobody can see, and the agent
 * decides better whether to retry. The count is per brain replica (in memory); with N replicas an
 * owner may have up to N × cap in progress (docs/adr/0046).
 */
import { AppError } from '@pag/contracts';

/** Seconds a refused request is told to wait (completions usually end within a few). */
export const CHAT_BUSY_RETRY_AFTER_S = 2;

export class OwnerGate {
  readonly #cap: number;
  readonly #inProgress = new Map<string, number>();

  constructor(cap: number) {
    this.#cap = cap;
  }

  /** Counts a request in; the returned function counts it out (call it once, in finally). */
  enter(accountId: string): () => void {
    const now = this.#inProgress.get(accountId) ?? 0;
    if (now >= this.#cap) {
      throw new AppError(
        'RATE_LIMITED',
        `This owner already has ${now} chat requests in progress (at most ${this.#cap} at once).`,
        { headers: { 'Retry-After': String(CHAT_BUSY_RETRY_AFTER_S) } },
      );
    }
    this.#inProgress.set(accountId, now + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const count = (this.#inProgress.get(accountId) ?? 1) - 1;
      if (count === 0) this.#inProgress.delete(accountId);
      else this.#inProgress.set(accountId, count);
    };
  }
}
