/**
 * The bus: how services meet. One interface, two implementations chosen by configuration only
 * (NATS when NATS_URL is set, in-memory otherwise), both held to one contract test suite.
 *
 * Payloads are JSON values (`undefined` travels as `null`; Dates become strings): every receiver
 * gets its own parsed copy. Headers carry correlation (request id) and caller identity.
 * A handler that throws an AppError makes the caller's `request` reject with the same code,
 * status, message, hint, expose flag and headers (they travel in reply headers, as nats.js
 * services do); any other throw arrives as INTERNAL_ERROR with a masked message.
 */

/**
 * Message headers. Names are printable ASCII without ':'; values are single-line and trimmed (as in
 * NATS). Names starting with `Nats-` belong to NATS and are dropped.
 */
export type Headers = Record<string, string>;

/** A message as a handler sees it. */
export interface BusMessage<T = unknown> {
  readonly subject: string;
  readonly data: T;
  readonly headers: Headers;
}

export interface RequestOptions {
  /** How long to wait for a reply before rejecting with BusTimeoutError. */
  timeoutMs: number;
  headers?: Headers;
}

export interface StreamRequestOptions {
  /** How long to wait for the first event (or the reply) before failing with BusTimeoutError. */
  timeoutMs: number;
  /** Silence allowed between two events; STREAM_IDLE_TIMEOUT_MS by default. */
  idleTimeoutMs?: number;
  /** The longest the whole stream may last; STREAM_MAX_DURATION_MS by default (and at most). */
  maxDurationMs?: number;
  headers?: Headers;
  /** Aborting cancels the request: nothing more is delivered and the handler's stream.signal aborts. */
  signal?: AbortSignal;
}

/**
 * A streamed reply as the requester reads it: the events in the order they were sent, then the
 * reply, then the end. Failures (BusTimeoutError, BusNoRespondersError, the handler's AppError)
 * reject the next read. Leaving the loop early (or the options' signal) cancels the request.
 */
export type StreamPart<R = unknown> =
  | { readonly kind: 'event'; readonly event: string; readonly data: unknown }
  | { readonly kind: 'reply'; readonly data: R };

/**
 * What a handler streams with, when the requester asked for a streamed reply (requestStream).
 * The handler still returns its reply (or throws) as for a plain request.
 */
export interface ReplyStream {
  /**
   * One event before the reply, delivered in order; resolves once handed to the bus. Rejects
   * with CLIENT_CLOSED_REQUEST once the requester cancelled, and with a TypeError for a name that
   * is not a letter then letters, digits, `_`, `-` or `.` (or is `done` or `error`).
   */
  send(event: string, data: unknown): Promise<void>;
  /** Aborts when the requester cancels (its client went away) or gives up (a timeout). */
  readonly signal: AbortSignal;
}

/** A request as its handler sees it. */
export interface RequestMessage<T = unknown> extends BusMessage<T> {
  /** Non-null only when the requester asked for a streamed reply. */
  readonly stream: ReplyStream | null;
}

export interface SubscribeOptions {
  /** Members of one queue group share the messages: each is delivered to one member only. */
  queue?: string;
}

export interface Subscription {
  /** Stops delivery, letting handlers already running finish. Idempotent. */
  close(): Promise<void>;
}

/** A durable stream (JetStream in the NATS implementation). */
export interface StreamDefinition {
  name: string;
  subjects: string[];
}

export interface DurablePublishOptions {
  /** Deduplication id: publishing the same id twice stores the message once. */
  msgId: string;
  headers?: Headers;
  timeoutMs?: number;
}

export interface DurablePublishAck {
  stream: string;
  seq: number;
  duplicate: boolean;
}

export interface ConsumeOptions {
  /** Redelivery delay after a handler failure or a missing ack; defaults to 30 s (JetStream's default). */
  ackWaitMs?: number;
  /** Deliveries of one message before it is given up (logged, not redelivered); unlimited by default. */
  maxDeliver?: number;
}

export interface ConsumeBatchOptions extends ConsumeOptions {
  /** The most messages one batch holds (a positive integer). */
  maxBatch: number;
}

/** A durable message: `deliveryCount` starts at 1 and grows with each redelivery. */
export interface DurableMessage<T = unknown> extends BusMessage<T> {
  /** The message's sequence number in its stream. */
  readonly seq: number;
  readonly deliveryCount: number;
  /** The publisher's deduplication id, so a consumer can deduplicate across redeliveries too. */
  readonly msgId: string;
}

export type RequestHandler<T = unknown, R = unknown> = (msg: RequestMessage<T>) => Promise<R> | R;
export type EventHandler<T = unknown> = (msg: BusMessage<T>) => Promise<void> | void;
/** Resolving acknowledges the message; throwing makes it redelivered after ackWaitMs. */
export type DurableHandler<T = unknown> = (msg: DurableMessage<T>) => Promise<void>;
/**
 * Resolving acknowledges every message of the batch; throwing makes all of them redelivered after
 * ackWaitMs (each given up on its own once its deliveries reach maxDeliver).
 */
export type DurableBatchHandler<T = unknown> = (messages: DurableMessage<T>[]) => Promise<void>;

export interface Bus {
  /** Request/reply. Rejects with BusTimeoutError, BusNoRespondersError, or the handler's AppError. */
  request<R = unknown>(subject: string, payload: unknown, options: RequestOptions): Promise<R>;
  /**
   * Request with a streamed reply: the handler's `stream` is non-null and each `send` reaches the
   * requester as an event before the reply. Rejects the first read with BusNoRespondersError, or
   * BusTimeoutError when no event (or reply) comes within timeoutMs, or then within idleTimeoutMs
   * of the previous event; a handler that never streams simply gives its reply.
   */
  requestStream<R = unknown>(
    subject: string,
    payload: unknown,
    options: StreamRequestOptions,
  ): AsyncIterable<StreamPart<R>>;
  /**
   * Answers requests on a subject (wildcards allowed); the handler's resolved value is the reply.
   * Resolves once the subscription is registered, so other processes can reach it from then on.
   */
  handle<T = unknown, R = unknown>(
    subject: string,
    handler: RequestHandler<T, R>,
    options?: SubscribeOptions,
  ): Promise<Subscription>;
  /** Fire-and-forget event to current subscribers. */
  publish(subject: string, payload: unknown, options?: { headers?: Headers }): Promise<void>;
  /** Resolves once the subscription is registered (see `handle`). Handlers may run concurrently. */
  subscribe<T = unknown>(
    subject: string,
    handler: EventHandler<T>,
    options?: SubscribeOptions,
  ): Promise<Subscription>;
  /** Creates the stream or updates its subjects; idempotent. */
  ensureStream(definition: StreamDefinition): Promise<void>;
  /** Resolves once the stream has stored the message (the JetStream ack). */
  publishDurable(
    subject: string,
    payload: unknown,
    options: DurablePublishOptions,
  ): Promise<DurablePublishAck>;
  /**
   * Starts (or resumes) a durable consumer; several processes with the same name share the work.
   * One `consume` call handles one message at a time, in stream order apart from redeliveries.
   */
  consume<T = unknown>(
    stream: string,
    durableName: string,
    handler: DurableHandler<T>,
    options?: ConsumeOptions,
  ): Promise<Subscription>;
  /**
   * Like `consume`, but the handler gets the messages in batches: a batch holds every message
   * available when the previous batch finished, up to maxBatch, and never waits for more (no
   * timer: one message alone is handled at once, batches grow with the load). Acknowledgements
   * are sent only after the handler resolved. Closing lets the running batch finish.
   */
  consumeBatch<T = unknown>(
    stream: string,
    durableName: string,
    handler: DurableBatchHandler<T>,
    options: ConsumeBatchOptions,
  ): Promise<Subscription>;
  /** Whether the bus can currently carry messages (for /readyz). */
  isReady(): boolean;
  /** Drains subscriptions, waits for in-flight handlers, closes the connection. */
  close(): Promise<void>;
}
