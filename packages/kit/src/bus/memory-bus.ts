/**
 * The in-process bus for the embedded mode and unit tests. Each MemoryBus is one "connection" to
 * a MemoryBroker; buses sharing a broker behave like processes sharing a nats-server (queue
 * groups, durable consumers). Payloads cross as JSON text, errors as reply headers, exactly as on
 * NATS, so code tested here behaves the same over the wire. One exception, in process only: on a
 * confirmed stream (confirmedBy, the embedded mode's audit) the confirming consumer is handed the
 * published object itself (docs/adr/0076).
 */
import { pino } from 'pino';
import type { Logger } from '../log/logger.ts';
import { errorFromHeaders } from './error-headers.ts';
import { BusNoRespondersError, BusTimeoutError } from './errors.ts';
import type { RawMessage } from './handler-runner.ts';
import {
  answerRequest,
  consumeSettings,
  runDurableBatch,
  runEventHandler,
  singleMessageBatches,
} from './handler-runner.ts';
import { InFlight } from './in-flight.ts';
import type { RoutedMessage } from './memory-broker.ts';
import { MemoryBroker } from './memory-broker.ts';
import type { MemoryStream } from './memory-stream.ts';
import { OpenSubscriptions } from './open-subscriptions.ts';
import { answerStreamRequest } from './reply-stream.ts';
import { StreamReceiver } from './stream-receiver.ts';
import { STREAM_HEADERS } from './stream-wire.ts';
import { assertLiteralSubject, assertSubjectPattern } from './subject.ts';
import type {
  Bus,
  ConsumeBatchOptions,
  ConsumeOptions,
  DurableBatchHandler,
  DurableHandler,
  DurablePublishAck,
  DurablePublishOptions,
  EventHandler,
  Headers,
  RequestHandler,
  RequestOptions,
  StreamDefinition,
  StreamPart,
  StreamRequestOptions,
  SubscribeOptions,
  Subscription,
} from './types.ts';
import { DEFAULT_PUBLISH_TIMEOUT_MS, decodePayload, encodePayload, normalizeHeaders } from './wire.ts';

export interface MemoryBusOptions {
  /** Share one broker between buses to model several processes; a fresh one by default. */
  broker?: MemoryBroker;
  logger?: Logger;
  /**
   * Stream name → durable consumer name: a durable publish on that stream resolves only once that
   * consumer acknowledged the message (e.g. `{ AUDIT: 'audit-writer' }`: the row is committed),
   * and fails as a publish without an ack does (UPSTREAM_TIMEOUT after timeoutMs) when that does
   * not happen in time, or at once (SERVICE_UNAVAILABLE) when the consumer gives it up. The
   * embedded mode has no durable stream; this makes the consumer's store its durability.
   */
  confirmedBy?: Record<string, string>;
}

export class MemoryBus implements Bus {
  readonly broker: MemoryBroker;
  readonly #logger: Logger;
  readonly #confirmedBy: ReadonlyMap<string, string>;
  readonly #subscriptions = new OpenSubscriptions();
  #closed = false;

  constructor(options: MemoryBusOptions = {}) {
    this.broker = options.broker ?? new MemoryBroker();
    this.#logger = options.logger ?? pino({ level: 'silent' });
    this.#confirmedBy = new Map(Object.entries(options.confirmedBy ?? {}));
  }

  /** Another connection to the same broker, as a second process would open. */
  peer(): MemoryBus {
    return new MemoryBus({ broker: this.broker, logger: this.#logger });
  }

  async request<R = unknown>(subject: string, payload: unknown, options: RequestOptions): Promise<R> {
    this.#assertOpen();
    assertLiteralSubject(subject);
    const message = this.#message(subject, payload, options.headers);
    return new Promise<R>((resolve, reject) => {
      let answered = false;
      const timer = setTimeout(() => {
        answered = true;
        reject(new BusTimeoutError(subject, options.timeoutMs));
      }, options.timeoutMs);
      const receivers = this.broker.route({
        ...message,
        reply: (reply) => {
          if (answered) return;
          answered = true;
          clearTimeout(timer);
          const error = errorFromHeaders(reply.headers);
          if (error) reject(error);
          else resolve(decodePayload(reply.data) as R);
        },
      });
      if (receivers === 0) {
        answered = true;
        clearTimeout(timer);
        reject(new BusNoRespondersError(subject));
      }
    });
  }

  requestStream<R = unknown>(
    subject: string,
    payload: unknown,
    options: StreamRequestOptions,
  ): AsyncIterable<StreamPart<R>> {
    this.#assertOpen();
    assertLiteralSubject(subject);
    const message = this.#message(subject, payload, { ...options.headers, [STREAM_HEADERS.request]: '1' });
    let listening = true;
    const receiver = new StreamReceiver<R>(subject, options, () => {
      listening = false;
    });
    if (receiver.ended) return receiver;
    const receivers = this.broker.route({
      ...message,
      // A part for a requester that stopped listening cancels the answering side, as NATS's
      // no-responders status on the part's reply subject does.
      stream: (part, cancel) => (listening ? receiver.receive(part, cancel) : cancel()),
    });
    if (receivers === 0) receiver.fail(new BusNoRespondersError(subject));
    return receiver;
  }

  handle<T = unknown, R = unknown>(
    subject: string,
    handler: RequestHandler<T, R>,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    return this.#subscribe(subject, options, async (message) => {
      const { stream } = message;
      if (stream !== undefined) {
        const cancelled = new AbortController();
        const cancel = () => cancelled.abort();
        return answerStreamRequest(handler as RequestHandler, message, this.#logger, {
          // Delivered asynchronously and in order, like a network hop (the broker's route does the same).
          send: (part) => queueMicrotask(() => stream(part, cancel)),
          cancelled: cancelled.signal,
          close: () => undefined,
        });
      }
      const reply = await answerRequest(handler as RequestHandler, message, this.#logger);
      message.reply?.(reply);
    });
  }

  async publish(subject: string, payload: unknown, options: { headers?: Headers } = {}): Promise<void> {
    this.#assertOpen();
    assertLiteralSubject(subject);
    this.broker.route(this.#message(subject, payload, options.headers));
  }

  subscribe<T = unknown>(
    subject: string,
    handler: EventHandler<T>,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    return this.#subscribe(subject, options, (message) =>
      runEventHandler(handler as EventHandler, message, this.#logger),
    );
  }

  async ensureStream(definition: StreamDefinition): Promise<void> {
    this.#assertOpen();
    for (const subject of definition.subjects) assertSubjectPattern(subject);
    this.broker.ensureStream(definition);
  }

  async publishDurable(
    subject: string,
    payload: unknown,
    options: DurablePublishOptions,
  ): Promise<DurablePublishAck> {
    this.#assertOpen();
    assertLiteralSubject(subject);
    const stream = this.broker.streamFor(subject);
    if (!stream) throw new BusNoRespondersError(subject, { message: `No stream stores ${subject}.` });
    const confirmer = this.#confirmedBy.get(stream.name);
    if (confirmer === undefined) {
      const message = this.#message(subject, payload, options.headers);
      const ack = stream.store({ ...message, msgId: options.msgId });
      // A durable publish is also a plain publish, as on NATS: live subscribers see it too.
      if (!ack.duplicate) this.broker.route(message);
      return ack;
    }
    // A confirmed stream stands in for a durable one in this process (the embedded mode's audit):
    // its confirming consumer is handed the payload itself, not a JSON copy to parse again; the
    // payload is encoded only for another consumer or a live subscriber (docs/adr/0076). The
    // publisher must not change it afterwards; the consumer checks it as it would a decoded one.
    const headers = normalizeHeaders(options.headers);
    const value = payload === undefined ? null : payload;
    const handed = { to: confirmer, value };
    const ack = stream.store({ subject, data: undefined, headers, msgId: options.msgId, handed });
    if (!ack.duplicate && this.broker.reaches(subject)) {
      this.broker.route({ subject, data: encodePayload(value), headers });
    }
    await this.#confirmed(
      stream,
      subject,
      confirmer,
      ack.seq,
      options.timeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS,
    );
    return ack;
  }

  consume<T = unknown>(
    streamName: string,
    durableName: string,
    handler: DurableHandler<T>,
    options: ConsumeOptions = {},
  ): Promise<Subscription> {
    return this.consumeBatch(streamName, durableName, singleMessageBatches(handler as DurableHandler), {
      ...options,
      maxBatch: 1,
    });
  }

  async consumeBatch<T = unknown>(
    streamName: string,
    durableName: string,
    handler: DurableBatchHandler<T>,
    options: ConsumeBatchOptions,
  ): Promise<Subscription> {
    this.#assertOpen();
    const stream = this.broker.stream(streamName);
    if (!stream) throw new Error(`stream ${streamName} does not exist; call ensureStream first`);
    const settings = consumeSettings(options);
    const consumer = stream.consumer(durableName, settings);
    const logger = this.#logger.child({ stream: streamName, durable: durableName });
    const detach = consumer.attach(
      (messages) => runDurableBatch(handler as DurableBatchHandler, messages, settings.maxDeliver, logger),
      settings.maxBatch,
    );
    return this.#subscriptions.track(detach);
  }

  isReady(): boolean {
    return !this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#subscriptions.closeAll();
  }

  async #subscribe(
    pattern: string,
    options: SubscribeOptions,
    onMessage: (message: RoutedMessage) => Promise<void>,
  ): Promise<Subscription> {
    this.#assertOpen();
    assertSubjectPattern(pattern);
    const inFlight = new InFlight();
    let active = true;
    const remove = this.broker.subscribe({
      pattern,
      queue: options.queue,
      deliver: (message) => {
        // A message routed before close() but delivered after it is dropped, as after an unsubscribe.
        if (active) void inFlight.run(() => onMessage(message));
      },
    });
    return this.#subscriptions.track(async () => {
      active = false;
      remove();
      await inFlight.idle();
    });
  }

  async #confirmed(stream: MemoryStream, subject: string, consumer: string, seq: number, timeoutMs: number) {
    const confirmation = await stream.confirmation(consumer, seq, timeoutMs);
    if (confirmation === 'timeout') {
      throw new BusTimeoutError(subject, timeoutMs, {
        message: `${consumer} did not acknowledge the message on ${subject} within ${timeoutMs} ms.`,
      });
    }
    if (confirmation === 'give-up') {
      throw new BusNoRespondersError(subject, { message: `${consumer} gave up the message on ${subject}.` });
    }
  }

  #message(subject: string, payload: unknown, headers: Headers | undefined): RawMessage {
    return { subject, data: encodePayload(payload), headers: normalizeHeaders(headers) };
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('the bus is closed');
  }
}
