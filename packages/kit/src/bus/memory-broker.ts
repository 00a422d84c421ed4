/**
 * The in-process stand-in for a nats-server: one broker, many MemoryBus "connections". It routes
 * a message to every plain subscriber whose pattern matches and to one member of each matching
 * queue group (round-robin), and it owns the durable streams, so consumer positions outlive any
 * one connection as they outlive a NATS client.
 */
import type { RawMessage, Reply } from './handler-runner.ts';
import { MemoryStream } from './memory-stream.ts';
import type { WirePart } from './stream-wire.ts';
import { subjectMatches, subjectsOverlap } from './subject.ts';
import type { StreamDefinition } from './types.ts';

export interface RoutedMessage extends RawMessage {
  /** Present on requests: the first reply wins, as with a NATS inbox. */
  reply?: (reply: Reply) => void;
  /**
   * Present on a request for a streamed reply: takes each part, in order, with the function that
   * cancels the answering side (reply-stream.ts).
   */
  stream?: (part: WirePart, cancel: () => void) => void;
}

export interface BrokerSubscription {
  pattern: string;
  queue?: string;
  deliver(message: RoutedMessage): void;
}

export class MemoryBroker {
  readonly #subscriptions = new Set<BrokerSubscription>();
  readonly #queueTurns = new Map<string, number>();
  readonly #streams = new Map<string, MemoryStream>();

  /** Registers a subscription; the returned function removes it. */
  subscribe(subscription: BrokerSubscription): () => void {
    this.#subscriptions.add(subscription);
    return () => this.#subscriptions.delete(subscription);
  }

  /** Delivers asynchronously, like a network hop; returns how many subscriptions receive it. */
  route(message: RoutedMessage): number {
    const receivers: BrokerSubscription[] = [];
    const groups = new Map<string, BrokerSubscription[]>();
    for (const subscription of this.#subscriptions) {
      if (!subjectMatches(subscription.pattern, message.subject)) continue;
      if (subscription.queue === undefined) {
        receivers.push(subscription);
      } else {
        const members = groups.get(subscription.queue) ?? [];
        members.push(subscription);
        groups.set(subscription.queue, members);
      }
    }
    for (const [queue, members] of groups) {
      const turn = this.#queueTurns.get(queue) ?? 0;
      this.#queueTurns.set(queue, turn + 1);
      receivers.push(members[turn % members.length]!);
    }
    for (const receiver of receivers) {
      queueMicrotask(() => receiver.deliver(message));
    }
    return receivers.length;
  }

  /** Creates the stream or replaces its subjects, refusing subjects another stream stores. */
  ensureStream(definition: StreamDefinition): void {
    for (const other of this.#streams.values()) {
      if (other.name === definition.name) continue;
      const overlap = definition.subjects.find((s) => other.subjects.some((o) => subjectsOverlap(o, s)));
      if (overlap !== undefined) {
        throw new Error(`stream ${definition.name}: subject ${overlap} overlaps stream ${other.name}`);
      }
    }
    const existing = this.#streams.get(definition.name);
    if (existing) existing.subjects = [...definition.subjects];
    else this.#streams.set(definition.name, new MemoryStream(definition.name, definition.subjects));
  }

  stream(name: string): MemoryStream | undefined {
    return this.#streams.get(name);
  }

  /** The stream that stores messages published on `subject`, if any. */
  streamFor(subject: string): MemoryStream | undefined {
    for (const stream of this.#streams.values()) {
      if (stream.subjects.some((pattern) => subjectMatches(pattern, subject))) return stream;
    }
    return undefined;
  }
}
