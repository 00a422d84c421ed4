/**
 * Group commit for writes that each caller must see committed before it answers (a memory note
 * answered 201): concurrent callers share one transaction instead of one each. One batch is in
 * flight at a time; what is submitted meanwhile waits and becomes the next batch (up to
 * maxBatch), so at low load a write goes out at once, alone (latency: one commit), and under load
 * batches grow by themselves. No timer: a linger would add its whole length to every write at
 * low load and save nothing at high load (the audit writer's batches work the same way,
 * docs/adr/0037).
 *
 * A failed batch is written again item by item, so a write that fails on its own (a constraint)
 * fails only its caller, and a failure of the database fails each caller with its own error.
 * This is safe because a batch is one transaction: if it failed, none of it was stored. Items
 * should carry their own keys (e.g. the row's id), so that a batch whose commit was lost with the
 * connection is refused when written again, not stored twice.
 */

export interface GroupCommitOptions<I, O> {
  /**
   * Writes the items in one transaction and answers one outcome per item, in their order;
   * resolves only after the commit.
   */
  commit(items: readonly I[]): Promise<readonly O[]>;
  /** At most this many items in one transaction. */
  maxBatch: number;
}

interface Waiting<I, O> {
  item: I;
  resolve(outcome: O): void;
  reject(error: unknown): void;
}

export class GroupCommit<I, O> {
  readonly #commit: (items: readonly I[]) => Promise<readonly O[]>;
  readonly #maxBatch: number;
  #waiting: Waiting<I, O>[] = [];
  #inFlight = false;

  constructor(options: GroupCommitOptions<I, O>) {
    if (!Number.isInteger(options.maxBatch) || options.maxBatch < 1) {
      throw new RangeError(`maxBatch must be a positive integer, got ${options.maxBatch}`);
    }
    this.#commit = options.commit;
    this.#maxBatch = options.maxBatch;
  }

  /** Resolves with the item's outcome once the transaction that holds it committed. */
  write(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (!this.#inFlight) void this.#run();
    });
  }

  async #run(): Promise<void> {
    this.#inFlight = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, this.#maxBatch);
      try {
        settle(batch, await this.#commitChecked(batch.map((entry) => entry.item)));
      } catch (error) {
        if (batch.length === 1) batch[0]?.reject(error);
        else await this.#oneByOne(batch);
      }
    }
    this.#inFlight = false;
  }

  async #oneByOne(batch: Waiting<I, O>[]): Promise<void> {
    for (const entry of batch) {
      try {
        settle([entry], await this.#commitChecked([entry.item]));
      } catch (error) {
        entry.reject(error);
      }
    }
  }

  async #commitChecked(items: readonly I[]): Promise<readonly O[]> {
    const outcomes = await this.#commit(items);
    if (outcomes.length !== items.length) {
      throw new Error(`a group commit of ${items.length} items answered ${outcomes.length} outcomes`);
    }
    return outcomes;
  }
}

function settle<I, O>(batch: Waiting<I, O>[], outcomes: readonly O[]): void {
  batch.forEach((entry, index) => {
    entry.resolve(outcomes[index] as O);
  });
}
