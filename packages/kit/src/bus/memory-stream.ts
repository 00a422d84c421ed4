/**
 * An in-memory durable stream with JetStream's publishing rules: sequence numbers from 1, a
 * publish whose msgId was seen within the duplicate window is acknowledged as a duplicate with
 * the original sequence and not stored again. Unlike JetStream it drops messages every durable
 * consumer is done with, so an embedded gateway that runs for weeks keeps bounded memory; and
 * while no durable consumer exists at all (embedded mode before the service that reads the stream
 * runs) it keeps only the newest RETAINED_WITHOUT_CONSUMER messages, as a JetStream stream with
 * max_msgs and discard old would. A publisher can wait for a named consumer to be done with its
 * message (confirmation()), which the embedded mode's ack-after-commit uses.
 */
import type { ConsumeSettings } from './handler-runner.ts';
import type { Confirmation } from './memory-confirmations.ts';
import { Confirmations } from './memory-confirmations.ts';
import type { StoredMessage } from './memory-consumer.ts';
import { MemoryConsumer } from './memory-consumer.ts';
import type { DurablePublishAck } from './types.ts';

/** JetStream's default duplicate_window. */
export const DUPLICATE_WINDOW_MS = 120_000;

/** Messages kept while nobody consumes the stream (about 50 MB of audit events). */
export const RETAINED_WITHOUT_CONSUMER = 100_000;

export class MemoryStream {
  readonly name: string;
  subjects: string[];
  readonly #messages = new Map<number, StoredMessage>();
  readonly #recentIds = new Map<string, { seq: number; at: number }>();
  readonly #consumers = new Map<string, MemoryConsumer>();
  readonly #confirmations = new Confirmations(DUPLICATE_WINDOW_MS);
  #lastSeq = 0;

  constructor(name: string, subjects: string[]) {
    this.name = name;
    this.subjects = [...subjects];
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  message(seq: number): StoredMessage | undefined {
    return this.#messages.get(seq);
  }

  store(message: Omit<StoredMessage, 'seq'>, now = Date.now()): DurablePublishAck {
    this.#forgetIdsBefore(now - DUPLICATE_WINDOW_MS);
    const seen = this.#recentIds.get(message.msgId);
    if (seen) return { stream: this.name, seq: seen.seq, duplicate: true };
    const seq = ++this.#lastSeq;
    this.#messages.set(seq, { ...message, seq });
    this.#recentIds.set(message.msgId, { seq, at: now });
    if (this.#consumers.size === 0 && this.#messages.size > RETAINED_WITHOUT_CONSUMER) {
      // Map iteration follows insertion, which is sequence order: the first key is the oldest.
      this.#messages.delete(this.#messages.keys().next().value as number);
    }
    for (const consumer of this.#consumers.values()) consumer.pump();
    return { stream: this.name, seq, duplicate: false };
  }

  /** The durable consumer of that name, created on first use; later settings replace earlier ones. */
  consumer(name: string, settings: ConsumeSettings): MemoryConsumer {
    const existing = this.#consumers.get(name);
    if (existing) {
      existing.settings = settings;
      return existing;
    }
    const consumer = new MemoryConsumer(name, this, settings);
    this.#consumers.set(name, consumer);
    return consumer;
  }

  /** Drops the messages every durable consumer has acknowledged or given up. */
  prune(): void {
    if (this.#consumers.size === 0) return;
    const floor = Math.min(...[...this.#consumers.values()].map((c) => c.doneThrough()));
    // Map iteration follows insertion, which is sequence order.
    for (const seq of this.#messages.keys()) {
      if (seq > floor) break;
      this.#messages.delete(seq);
    }
  }

  /**
   * How the durable consumer `consumer` settles message `seq`: acknowledged, given up, or
   * neither within timeoutMs (also when that consumer does not exist, or not yet).
   */
  confirmation(consumer: string, seq: number, timeoutMs: number): Promise<Confirmation> {
    const existing = this.#consumers.get(consumer);
    if (existing && seq <= existing.doneThrough()) {
      return Promise.resolve(this.#confirmations.doneWith(consumer, seq));
    }
    return this.#confirmations.wait(consumer, seq, timeoutMs);
  }

  settled(consumer: string, seq: number, outcome: 'ack' | 'give-up'): void {
    this.#confirmations.settled(consumer, seq, outcome);
  }

  #forgetIdsBefore(cutoff: number): void {
    for (const [id, { at }] of this.#recentIds) {
      if (at >= cutoff) break;
      this.#recentIds.delete(id);
    }
  }
}
