/**
 * The bus over NATS (official client v3): core request/reply and pub/sub with queue groups,
 * JetStream for durable streams. Payloads are JSON text; a handler's failure travels as reply
 * headers and is rebuilt into an AppError at the caller; the client's timeout and no-responders
 * errors become BusTimeoutError and BusNoRespondersError. close() drains.
 */

import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Msg, NatsConnection, Subscription as NatsSubscription } from '@nats-io/transport-node';
import { createInbox, Empty } from '@nats-io/transport-node';
import { natsInboxPrefix } from '@pag/contracts';
import { pino } from 'pino';
import type { Logger } from '../log/logger.ts';
import { errorFromHeaders } from './error-headers.ts';
import { BusNoRespondersError } from './errors.ts';
import type { RawMessage } from './handler-runner.ts';
import { answerRequest, consumeSettings, runEventHandler, singleMessageBatches } from './handler-runner.ts';
import { InFlight } from './in-flight.ts';
import type { WatchedConnection } from './nats-connection.ts';
import { connectNats } from './nats-connection.ts';
import { startNatsConsumer } from './nats-consume.ts';
import type { NatsCredentials } from './nats-credentials.ts';
import { toBusError } from './nats-errors.ts';
import { fromNatsHeaders, toNatsHeaders } from './nats-headers.ts';
import { ensureNatsStream } from './nats-streams.ts';
import { OpenSubscriptions } from './open-subscriptions.ts';
import { answerStreamRequest } from './reply-stream.ts';
import { StreamReceiver } from './stream-receiver.ts';
import { partHeaders, partOf, STREAM_HEADERS } from './stream-wire.ts';
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

export interface NatsBusOptions {
  url: string;
  /** The connection name the server shows: the service name, which also names its reply inbox. */
  name: string;
  /** The service's own NATS user (deploy/nats/nats-server.conf); unset: no sign-in. */
  credentials?: NatsCredentials | undefined;
  logger?: Logger;
}

export class NatsBus implements Bus {
  readonly #watched: WatchedConnection;
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #logger: Logger;
  readonly #subscriptions = new OpenSubscriptions();
  /** Where this connection's inboxes live (the connection's name decides it). */
  readonly #inboxPrefix: string;
  #closing: Promise<void> | undefined;

  private constructor(
    watched: WatchedConnection,
    jsm: JetStreamManager,
    logger: Logger,
    inboxPrefix: string,
  ) {
    this.#inboxPrefix = inboxPrefix;
    this.#watched = watched;
    this.#nc = watched.connection;
    this.#js = jetstream(this.#nc);
    this.#jsm = jsm;
    this.#logger = logger;
  }

  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const logger = options.logger ?? pino({ level: 'silent' });
    const inboxPrefix = natsInboxPrefix(options.name);
    const watched = await connectNats({
      url: options.url,
      name: options.name,
      credentials: options.credentials,
      inboxPrefix,
      logger,
    });
    return new NatsBus(watched, await jetstreamManager(watched.connection), logger, inboxPrefix);
  }

  async request<R = unknown>(subject: string, payload: unknown, options: RequestOptions): Promise<R> {
    let reply: Msg;
    try {
      reply = await this.#nc.request(subject, encodePayload(payload), {
        timeout: options.timeoutMs,
        headers: toNatsHeaders(normalizeHeaders(options.headers)),
      });
    } catch (error) {
      throw toBusError(error, subject, options.timeoutMs);
    }
    const failure = errorFromHeaders(fromNatsHeaders(reply.headers));
    if (failure) throw failure;
    return decodePayload(reply.string()) as R;
  }

  /**
   * The requester's inbox receives the parts; the request goes out with it as its reply subject,
   * so a subject nobody handles answers at once with NATS's no-responders status. A cancel is a
   * message to the reply subject of the parts (an inbox of the answering service).
   */
  requestStream<R = unknown>(
    subject: string,
    payload: unknown,
    options: StreamRequestOptions,
  ): AsyncIterable<StreamPart<R>> {
    const inbox = createInbox(this.#inboxPrefix);
    let subscription: NatsSubscription | undefined;
    const receiver = new StreamReceiver<R>(subject, options, () => subscription?.unsubscribe());
    if (receiver.ended) return receiver;
    subscription = this.#nc.subscribe(inbox, {
      callback: (error, message) => {
        if (error) return receiver.fail(toBusError(error, subject, options.timeoutMs));
        if (message.data.length === 0 && message.headers?.code === 503) {
          return receiver.fail(new BusNoRespondersError(subject));
        }
        const data = message.string();
        const headers = fromNatsHeaders(message.headers);
        // A plain reply is a responder that does not stream (an older version): its reply ends it.
        const part = partOf(data, headers) ?? { kind: 'reply', data, headers };
        const control = message.reply;
        receiver.receive(part, () => {
          if (control !== undefined && !this.#nc.isClosed()) this.#nc.publish(control, Empty);
        });
      },
    });
    try {
      this.#nc.publish(subject, encodePayload(payload), {
        reply: inbox,
        headers: toNatsHeaders(normalizeHeaders({ ...options.headers, [STREAM_HEADERS.request]: '1' })),
      });
    } catch (error) {
      receiver.fail(toBusError(error, subject, options.timeoutMs));
    }
    return receiver;
  }

  handle<T = unknown, R = unknown>(
    subject: string,
    handler: RequestHandler<T, R>,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    return this.#subscribe(subject, options, async (message, raw) => {
      if (message.reply && raw.headers[STREAM_HEADERS.request] === '1') {
        return this.#answerStream(handler as RequestHandler, message.reply, raw);
      }
      const reply = await answerRequest(handler as RequestHandler, raw, this.#logger);
      // A plain publish to a handled subject has nobody to answer.
      if (message.reply) message.respond(reply.data, { headers: toNatsHeaders(reply.headers) });
    });
  }

  async publish(subject: string, payload: unknown, options: { headers?: Headers } = {}): Promise<void> {
    this.#nc.publish(subject, encodePayload(payload), {
      headers: toNatsHeaders(normalizeHeaders(options.headers)),
    });
  }

  subscribe<T = unknown>(
    subject: string,
    handler: EventHandler<T>,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    return this.#subscribe(subject, options, (_message, raw) =>
      runEventHandler(handler as EventHandler, raw, this.#logger),
    );
  }

  ensureStream(definition: StreamDefinition): Promise<void> {
    return ensureNatsStream(this.#jsm, definition);
  }

  async publishDurable(
    subject: string,
    payload: unknown,
    options: DurablePublishOptions,
  ): Promise<DurablePublishAck> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS;
    try {
      const ack = await this.#js.publish(subject, encodePayload(payload), {
        msgID: options.msgId,
        timeout: timeoutMs,
        headers: toNatsHeaders(normalizeHeaders(options.headers)),
      });
      return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      throw toBusError(error, subject, timeoutMs, true);
    }
  }

  consume<T = unknown>(
    stream: string,
    durableName: string,
    handler: DurableHandler<T>,
    options: ConsumeOptions = {},
  ): Promise<Subscription> {
    return this.consumeBatch(stream, durableName, singleMessageBatches(handler as DurableHandler), {
      ...options,
      maxBatch: 1,
    });
  }

  async consumeBatch<T = unknown>(
    stream: string,
    durableName: string,
    handler: DurableBatchHandler<T>,
    options: ConsumeBatchOptions,
  ): Promise<Subscription> {
    const consumer = await startNatsConsumer(this.#js, this.#jsm, {
      stream,
      durable: durableName,
      handler: handler as DurableBatchHandler,
      ...consumeSettings(options),
      logger: this.#logger,
    });
    return this.#subscriptions.track(async () => {
      await consumer.stop();
      // The acks and naks sent so far reach the server before close() resolves.
      if (this.isReady()) await this.#nc.flush().catch(() => undefined);
    });
  }

  isReady(): boolean {
    return this.#watched.isConnected();
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#subscriptions.closeAll();
      if (this.#nc.isClosed()) return;
      // Draining needs the server; a shutdown while NATS is away must still finish.
      try {
        if (this.isReady()) await this.#nc.drain();
      } catch (error) {
        this.#logger.warn({ err: error }, 'NATS drain failed; closing');
      }
      if (!this.#nc.isClosed()) await this.#nc.close();
    })();
    return this.#closing;
  }

  /**
   * Each part goes to the requester's inbox with a control inbox of ours as its reply subject: a
   * message there is the requester's cancel, or NATS's no-responders status when the requester's
   * inbox is gone; either aborts the stream.
   */
  async #answerStream(handler: RequestHandler, replyTo: string, raw: RawMessage): Promise<void> {
    const cancelled = new AbortController();
    const control = this.#nc.subscribe(createInbox(this.#inboxPrefix), {
      max: 1,
      callback: () => cancelled.abort(),
    });
    await answerStreamRequest(handler, raw, this.#logger, {
      send: (part) => {
        if (this.#nc.isClosed()) return;
        this.#nc.publish(replyTo, part.data, {
          reply: control.getSubject(),
          headers: toNatsHeaders(partHeaders(part)),
        });
      },
      cancelled: cancelled.signal,
      // `max: 1` may have closed it already.
      close: () => {
        if (!control.isClosed()) control.unsubscribe();
      },
    });
  }

  async #subscribe(
    subject: string,
    options: SubscribeOptions,
    onMessage: (message: Msg, raw: RawMessage) => Promise<void>,
  ): Promise<Subscription> {
    const inFlight = new InFlight();
    const subscription = this.#nc.subscribe(subject, {
      queue: options.queue,
      callback: (error, message) => {
        if (error) {
          this.#logger.error({ err: error, subject }, 'NATS subscription failed');
          return;
        }
        void inFlight
          .run(async () => {
            const headers = fromNatsHeaders(message.headers);
            await onMessage(message, { subject: message.subject, data: message.string(), headers });
          })
          .catch((failure: unknown) => this.#logger.error({ err: failure, subject }, 'NATS message dropped'));
      },
    });
    // Resolving only once the server knows the subscription, so other processes can reach it.
    await this.#nc.flush();
    return this.#subscriptions.track(async () => {
      if (!subscription.isClosed()) {
        // Draining delivers what the server already sent; it needs the server to answer.
        if (this.isReady()) await subscription.drain().catch(() => subscription.unsubscribe());
        else subscription.unsubscribe();
      }
      await inFlight.idle();
    });
  }
}
