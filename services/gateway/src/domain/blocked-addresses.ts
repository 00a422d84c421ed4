/**
 * This replica's copy of the addresses that are past their budget of authentication failures
 * (docs/adr/0026-auth-failure-budget-per-address.md), so that "is this address blocked?" costs a
 * map lookup and no I/O. The count itself is in PostgreSQL; this copy learns a block from this
 * replica's own count and from a refresh of the blocked rows every second, and forgets it when its
 * window ends. A late copy costs at most some introspections (a failure is always counted in the
 * database, which decides its answer); it never lets more failures through than the budget.
 * Bounded: past `maxEntries` the block that ends first is dropped (its address is counted again).
 */
export class BlockedAddresses {
  /** Address → when its block ends (epoch ms). */
  readonly #until = new Map<string, number>();
  readonly #maxEntries: number;

  constructor(maxEntries = 100_000) {
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#until.size;
  }

  /** Whole seconds until the address may send a token again; 0 when it may now. */
  retryAfterSeconds(address: string, nowMs: number): number {
    const until = this.#until.get(address);
    if (until === undefined) return 0;
    if (until <= nowMs) {
      this.#until.delete(address);
      return 0;
    }
    return Math.max(1, Math.ceil((until - nowMs) / 1000));
  }

  /** Blocks the address until `untilMs` (the later of two blocks wins). */
  block(address: string, untilMs: number): void {
    const known = this.#until.get(address);
    if (known !== undefined && known >= untilMs) return;
    this.#until.set(address, untilMs);
    if (this.#until.size > this.#maxEntries) this.#dropFirstEnding();
  }

  /** Forgets every block that has ended. */
  prune(nowMs: number): void {
    for (const [address, until] of this.#until) if (until <= nowMs) this.#until.delete(address);
  }

  #dropFirstEnding(): void {
    let first: [string, number] | undefined;
    for (const entry of this.#until) if (first === undefined || entry[1] < first[1]) first = entry;
    if (first !== undefined) this.#until.delete(first[0]);
  }
}
