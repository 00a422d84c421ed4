/**
 * A durable consumer of a memory stream, with JetStream's delivery rules: every message goes to
 * one attached worker at a time, in a batch of everything available up to the worker's maxBatch
 * (one for `consume`); a failed delivery comes back after ackWaitMs with a higher
 * deliveryCount until maxDeliver; the position (what was delivered and acknowledged) belongs to
 * the consumer, not to the workers, so it survives a worker's close and a later resume.
 *
 * Unlike JetStream, a handler that never settles is not redelivered: in one process it still
 * holds the message, and a crash loses the whole stream anyway.
 */
import type { ConsumeSettings, DurableOutcome, RawDurableMessage } from './handler-runner.ts';
import type { Headers } from './types.ts';
import { encodePayload } from './wire.ts';

/** A message as a stream keeps it. */
export interface StoredMessage {
  seq: number;
  subject: string;
  /** The payload as JSON text; with `handed`, encoded at the first delivery to another consumer. */
  data: string | undefined;
  headers: Headers;
  msgId: string;
  /**
   * On a confirmed stream (MemoryBusOptions.confirmedBy): the publisher's payload itself, handed
   * to the confirming consumer `to` without a JSON copy (docs/adr/0076).
   */
  handed?: { to: string; value: unknown };
}

/** What a consumer reads of its stream (memory-stream.ts), named here so neither imports the other. */
export interface ConsumedStream {
  readonly lastSeq: number;
  message(seq: number): StoredMessage | undefined;
  /** Drops what every consumer has acknowledged. */
  prune(): void;
  /** Told of every message a consumer is done with, for the publishers waiting on it. */
  settled(consumer: string, seq: number, outcome: 'ack' | 'give-up'): void;
}

/** One `consume` or `consumeBatch` call: handles one batch at a time. Must not reject. */
export type DeliveryWorker = (messages: RawDurableMessage[]) => Promise<DurableOutcome[]>;

interface Worker {
  run: DeliveryWorker;
  maxBatch: number;
  /** The batch being handled, bookkeeping included. */
  current?: Promise<void>;
}

export class MemoryConsumer {
  readonly name: string;
  settings: ConsumeSettings;
  readonly #stream: ConsumedStream;
  readonly #workers: Worker[] = [];
  /** Delivered but not yet acknowledged or given up, with the deliveries so far. */
  readonly #unacked = new Map<number, number>();
  /** Failed deliveries whose ackWait has passed, in the order they came due. */
  readonly #due: number[] = [];
  #nextSeq = 1;
  #turn = 0;

  constructor(name: string, stream: ConsumedStream, settings: ConsumeSettings) {
    this.name = name;
    this.#stream = stream;
    this.settings = settings;
  }

  /**
   * Adds a worker taking batches of up to `maxBatch` messages. The returned function detaches it
   * and resolves once the batch it is running has been handled and acknowledged (or scheduled
   * for redelivery).
   */
  attach(run: DeliveryWorker, maxBatch: number): () => Promise<void> {
    const worker: Worker = { run, maxBatch };
    this.#workers.push(worker);
    this.pump();
    return async () => {
      const index = this.#workers.indexOf(worker);
      if (index >= 0) this.#workers.splice(index, 1);
      await worker.current;
    };
  }

  /**
   * Hands available messages to idle workers, round-robin, each as one batch of everything
   * available up to the worker's maxBatch. Called whenever a message is stored, comes due again
   * or a batch finishes, so a batch never waits for more messages.
   */
  pump(): void {
    for (;;) {
      const worker = this.#idleWorker();
      if (!worker) return;
      const batch: number[] = [];
      while (batch.length < worker.maxBatch) {
        const seq = this.#nextToDeliver();
        if (seq === undefined) break;
        batch.push(seq);
      }
      if (batch.length === 0) return;
      this.#deliver(worker, batch);
    }
  }

  /** Every sequence up to this one is acknowledged or given up. */
  doneThrough(): number {
    let floor = this.#nextSeq - 1;
    for (const seq of this.#unacked.keys()) floor = Math.min(floor, seq - 1);
    return floor;
  }

  #idleWorker(): Worker | undefined {
    for (let i = 0; i < this.#workers.length; i++) {
      const worker = this.#workers[(this.#turn + i) % this.#workers.length]!;
      if (!worker.current) {
        this.#turn = (this.#turn + i + 1) % this.#workers.length;
        return worker;
      }
    }
    return undefined;
  }

  #nextToDeliver(): number | undefined {
    const due = this.#due.shift();
    if (due !== undefined) return due;
    while (this.#nextSeq <= this.#stream.lastSeq) {
      const seq = this.#nextSeq++;
      // A message pruned before this consumer existed is skipped.
      if (this.#stream.message(seq)) return seq;
    }
    return undefined;
  }

  #deliver(worker: Worker, seqs: number[]): void {
    const messages = seqs.map((seq) => {
      const deliveryCount = (this.#unacked.get(seq) ?? 0) + 1;
      this.#unacked.set(seq, deliveryCount);
      const stored = this.#stream.message(seq)!;
      const { subject, headers, msgId, handed } = stored;
      if (handed === undefined)
        return { seq, subject, data: stored.data ?? '', headers, msgId, deliveryCount };
      if (handed.to === this.name) {
        return { seq, subject, data: '', headers, msgId, deliveryCount, handed: { value: handed.value } };
      }
      // Any other consumer gets its own copy, as over the wire.
      stored.data ??= encodePayload(handed.value);
      return { seq, subject, data: stored.data, headers, msgId, deliveryCount };
    });
    worker.current = worker.run(messages).then((outcomes) => {
      worker.current = undefined;
      const retry: number[] = [];
      for (const [index, seq] of seqs.entries()) {
        const outcome = outcomes[index]!;
        if (outcome === 'retry') {
          retry.push(seq);
        } else {
          this.#unacked.delete(seq);
          this.#stream.settled(this.name, seq, outcome);
        }
      }
      if (retry.length > 0) this.#redeliverLater(retry);
      this.#stream.prune();
      this.pump();
    });
  }

  /** The failed messages come due together after ackWait, so they can share a batch again. */
  #redeliverLater(seqs: number[]): void {
    const timer = setTimeout(() => {
      this.#due.push(...seqs);
      this.pump();
    }, this.settings.ackWaitMs);
    // A pending redelivery must not keep a process alive that is otherwise done.
    timer.unref();
  }
}
