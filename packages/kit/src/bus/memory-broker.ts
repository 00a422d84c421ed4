/**
 * The in-process stand-in for a nats-server: one broker, many MemoryBus "connections". It routes
 * a message to every plain subscriber whose pattern matches and to one member of each matching
 * queue group (round-robin), and it owns the durable streams, so consumer positions outlive any
 * one connection as they outlive a NATS client.
 *
 * Who receives a subject is worked out once and kept until a subscription comes or goes (as a
 * nats-server keeps its subject cache): matching every pattern against every message was about
 * 3 % of the embedded stack's main thread on GET /api/v1/gateway/context, which crosses the bus
 * several times (docs/adr/0043). Subscriptions change at start and stop; requests need none.
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

/** The subscriptions a subject reaches: every plain one, and the members of each queue group. */
interface Audience {
  plain: BrokerSubscription[];
  groups: Map<string, BrokerSubscription[]>;
}

/**
 * Subjects whose audience is kept; past it the kept ones are dropped and worked out again (a
 * subject may carry an id, so the set of subjects is not bounded by the subscriptions).
 */
export const AUDIENCES_KEPT = 1024;

export class MemoryBroker {
  readonly #subscriptions = new Set<BrokerSubscription>();
  readonly #queueTurns = new Map<string, number>();
  readonly #streams = new Map<string, MemoryStream>();
  /** By subject; emptied whenever a subscription comes or goes. */
  readonly #audiences = new Map<string, Audience>();
  /** The stream storing each subject (or none); emptied whenever a stream is made or changed. */
  readonly #storedBy = new Map<string, MemoryStream | undefined>();

  /** Registers a subscription; the returned function removes it. */
  subscribe(subscription: BrokerSubscription): () => void {
    this.#subscriptions.add(subscription);
    this.#audiences.clear();
    return () => {
      this.#subscriptions.delete(subscription);
      this.#audiences.clear();
    };
  }

  /** Delivers asynchronously, like a network hop; returns how many subscriptions receive it. */
  route(message: RoutedMessage): number {
    const { plain, groups } = this.#audienceOf(message.subject);
    const receivers = [...plain];
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

  /** Whether any subscription would receive a message on this subject. */
  reaches(subject: string): boolean {
    const { plain, groups } = this.#audienceOf(subject);
    return plain.length > 0 || groups.size > 0;
  }

  #audienceOf(subject: string): Audience {
    const kept = this.#audiences.get(subject);
    if (kept !== undefined) return kept;
    const audience: Audience = { plain: [], groups: new Map() };
    for (const subscription of this.#subscriptions) {
      if (!subjectMatches(subscription.pattern, subject)) continue;
      if (subscription.queue === undefined) {
        audience.plain.push(subscription);
      } else {
        const members = audience.groups.get(subscription.queue) ?? [];
        members.push(subscription);
        audience.groups.set(subscription.queue, members);
      }
    }
    if (this.#audiences.size >= AUDIENCES_KEPT) this.#audiences.clear();
    this.#audiences.set(subject, audience);
    return audience;
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
    this.#storedBy.clear();
    const existing = this.#streams.get(definition.name);
    if (existing) existing.subjects = [...definition.subjects];
    else this.#streams.set(definition.name, new MemoryStream(definition.name, definition.subjects));
  }

  stream(name: string): MemoryStream | undefined {
    return this.#streams.get(name);
  }

  /** The stream that stores messages published on `subject`, if any (kept as the audiences are). */
  streamFor(subject: string): MemoryStream | undefined {
    if (this.#storedBy.has(subject)) return this.#storedBy.get(subject);
    let found: MemoryStream | undefined;
    for (const stream of this.#streams.values()) {
      if (stream.subjects.some((pattern) => subjectMatches(pattern, subject))) {
        found = stream;
        break;
      }
    }
    if (this.#storedBy.size >= AUDIENCES_KEPT) this.#storedBy.clear();
    this.#storedBy.set(subject, found);
    return found;
  }
}
