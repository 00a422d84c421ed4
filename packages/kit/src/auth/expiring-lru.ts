/**
 * A bounded map whose entries expire: the least recently used entry leaves first when full, and an
 * expired entry is never returned. Map iteration order is insertion order, so re-inserting on a
 * hit keeps the oldest entry first without a linked list.
 */

interface Slot<V> {
  value: V;
  expiresAt: number;
}

export class ExpiringLru<V> {
  readonly #slots = new Map<string, Slot<V>>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(maxEntries: number, now: () => number = Date.now) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1)
      throw new Error('maxEntries must be a positive integer');
    this.#maxEntries = maxEntries;
    this.#now = now;
  }

  get size(): number {
    return this.#slots.size;
  }

  get(key: string): V | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    this.#slots.delete(key);
    if (slot.expiresAt <= this.#now()) return undefined;
    this.#slots.set(key, slot);
    return slot.value;
  }

  /** Stores until `expiresAt` (epoch ms); a time already past stores nothing. */
  set(key: string, value: V, expiresAt: number): void {
    this.#slots.delete(key);
    if (expiresAt <= this.#now()) return;
    this.#slots.set(key, { value, expiresAt });
    while (this.#slots.size > this.#maxEntries) {
      const oldest = this.#slots.keys().next().value as string;
      this.#slots.delete(oldest);
    }
  }

  delete(key: string): boolean {
    return this.#slots.delete(key);
  }

  /** Removes every entry whose value matches; for evictions by something other than the key. */
  deleteWhere(predicate: (value: V) => boolean): number {
    let removed = 0;
    for (const [key, slot] of this.#slots) {
      if (predicate(slot.value)) {
        this.#slots.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  clear(): void {
    this.#slots.clear();
  }
}
