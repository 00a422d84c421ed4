/**
 * What verify reads, in seq order and a page at a time (keyset pagination: memory stays bounded
 * however long the log is). The store implements it on one database snapshot
 * (store/chain-snapshot.ts), so rows and checkpoints appended meanwhile cannot disagree.
 */
import type { ChainContent } from '../chain/chain-hash.ts';
import type { Checkpoint } from '../checkpoints/checkpoint-signature.ts';

/** A stored row: its content, its place and both hashes as stored. */
export interface ChainRow extends ChainContent {
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
}

export interface ChainSource {
  /** The lowest seq of any row, or null when there is none. */
  firstSeq(): Promise<number | null>;
  row(seq: number): Promise<ChainRow | null>;
  /** Up to `limit` rows with seq > `after`, by seq. */
  rowsAfter(after: number, limit: number): Promise<ChainRow[]>;
  /** Up to `limit` checkpoints with seq > `after`, by seq. */
  checkpointsAfter(after: number, limit: number): Promise<Checkpoint[]>;
  checkpointAt(seq: number): Promise<Checkpoint | null>;
  /** The checkpoint with the highest seq below `seq`, or null. */
  checkpointBefore(seq: number): Promise<Checkpoint | null>;
}

/**
 * Reads a keyset-paged sequence one item at a time, with a look at the next one. The page after
 * the current one is read while the current one is being checked (the database works while the
 * hashes are computed); settle() waits for that read before the snapshot ends.
 */
export class PagedCursor<T extends { readonly seq: number }> {
  readonly #fetch: (after: number, limit: number) => Promise<T[]>;
  readonly #pageSize: number;
  #page: T[] = [];
  #index = 0;
  #after: number;
  #done = false;
  #nextPage: Promise<T[]> | undefined;

  constructor(fetch: (after: number, limit: number) => Promise<T[]>, after: number, pageSize: number) {
    this.#fetch = fetch;
    this.#after = after;
    this.#pageSize = pageSize;
  }

  /** The next item without taking it; undefined at the end. */
  async peek(): Promise<T | undefined> {
    if (this.#index === this.#page.length && !this.#done) {
      this.#page = await (this.#nextPage ?? this.#fetch(this.#after, this.#pageSize));
      this.#nextPage = undefined;
      this.#index = 0;
      this.#done = this.#page.length < this.#pageSize;
      const last = this.#page.at(-1);
      if (last !== undefined) this.#after = last.seq;
      if (!this.#done) {
        this.#nextPage = this.#fetch(this.#after, this.#pageSize);
        // Awaited by the next peek() or by settle(); until then a failure must not go unhandled.
        this.#nextPage.catch(() => {});
      }
    }
    return this.#page[this.#index];
  }

  async next(): Promise<T | undefined> {
    const item = await this.peek();
    if (item !== undefined) this.#index += 1;
    return item;
  }

  /** Waits for a read still under way (its result, or failure, no longer matters). */
  async settle(): Promise<void> {
    await this.#nextPage?.catch(() => {});
  }
}
