/**
 * The per-owner cap on chat requests in progress (CHAT_OWNER_CONCURRENCY), so one owner's agents
 * cannot tie up the provider (and its bill) with many long completions at once. Over the cap the
 * request is refused at once with 429 RATE_LIMITED and a Retry-After hint rather than queued: a
 * queued chat would hold the gateway's connection for a wait nobody can see, and the agent
 * decides better whether to retry. The count is per brain replica (in memory); with N replicas an
 * owner may have up to N × cap in progress (docs/adr/0046).
 *
 * A trigger run is background work nobody waits on at a connection: it waits for a slot
 * (`enterWhenFree`) until its deadline instead of failing because the owner happened to be
 * chatting, or several of their triggers were due in the same minute.
 */
import { AppError } from '@pag/contracts';

/** Seconds a refused request is told to wait (completions usually end within a few). */
export const CHAT_BUSY_RETRY_AFTER_S = 2;

export class OwnerGate {
  readonly #cap: number;
  readonly #inProgress = new Map<string, number>();
  /** Per account: the waiters of enterWhenFree, woken one per slot freed. */
  readonly #waiting = new Map<string, Array<() => void>>();

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
    return this.#take(accountId, now);
  }

  /**
   * Counts background work in as soon as a slot is free, waiting until `deadline` (epoch ms);
   * past it, RATE_LIMITED saying how long it waited.
   */
  async enterWhenFree(accountId: string, deadline: number): Promise<() => void> {
    const started = Date.now();
    for (;;) {
      const now = this.#inProgress.get(accountId) ?? 0;
      if (now < this.#cap) return this.#take(accountId, now);
      const left = deadline - Date.now();
      if (left <= 0 || !(await this.#slotFreed(accountId, left))) {
        throw new AppError(
          'RATE_LIMITED',
          `This owner's chats and runs kept all ${this.#cap} slots busy for ${Math.round((Date.now() - started) / 1000)} s.`,
        );
      }
    }
  }

  /** Resolves true when a slot of the account is freed, false after `ms`. */
  #slotFreed(accountId: string, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiters = this.#waiting.get(accountId) ?? [];
      this.#waiting.set(accountId, waiters);
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const index = waiters.indexOf(wake);
        if (index >= 0) waiters.splice(index, 1);
        if (waiters.length === 0 && this.#waiting.get(accountId) === waiters) this.#waiting.delete(accountId);
        resolve(false);
      }, ms);
      waiters.push(wake);
    });
  }

  #take(accountId: string, now: number): () => void {
    this.#inProgress.set(accountId, now + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const count = (this.#inProgress.get(accountId) ?? 1) - 1;
      if (count === 0) this.#inProgress.delete(accountId);
      else this.#inProgress.set(accountId, count);
      const waiters = this.#waiting.get(accountId);
      const next = waiters?.shift();
      if (waiters !== undefined && waiters.length === 0) this.#waiting.delete(accountId);
      next?.();
    };
  }
}
