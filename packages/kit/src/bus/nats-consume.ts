/**
 * A durable pull consumer on JetStream driven by a batch handler (`consume` is batches of one).
 * A batch is every message this client has received when the previous batch finished, up to
 * maxBatch; each message is acked once the handler resolved (never before), nak'ed with a delay
 * of ackWaitMs when it threw, termed when given up. Closing stops pulling, hands back what was
 * buffered (nak, so another replica takes it at once) and waits for the running batch. What the
 * server had already sent when the client unsubscribed never arrives; JetStream cannot cancel a
 * pull request, so those messages come back after ackWait, as a crashed replica's would.
 *
 * The buffer is bounded. nats.js's consume() keeps max_messages = maxBatch requested from the
 * server, and its refill request waits in its iterator's queue behind the messages received
 * before it, so it is sent only as the iterator is read (consumer.js, queued_iterator.js). The
 * reader below reads only while the running batch and the messages waiting here are fewer than
 * maxBatch: a client holds at most two batches' worth, and `consume` one message at a time, as
 * before. That matters because JetStream's ackWait runs from when a message reaches the client,
 * and replicas share the work better when none hoards it.
 */
import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../log/logger.ts';
import type { RawDurableMessage } from './handler-runner.ts';
import { runDurableBatch } from './handler-runner.ts';
import { fromNatsHeaders } from './nats-headers.ts';
import { ensureNatsConsumer } from './nats-streams.ts';
import type { DurableBatchHandler } from './types.ts';

export interface NatsConsumerArgs {
  stream: string;
  durable: string;
  handler: DurableBatchHandler;
  maxBatch: number;
  ackWaitMs: number;
  maxDeliver: number;
  logger: Logger;
}

export async function startNatsConsumer(
  js: JetStreamClient,
  jsm: JetStreamManager,
  args: NatsConsumerArgs,
): Promise<{ stop(): Promise<void> }> {
  const { stream, durable, handler, maxBatch, ackWaitMs, maxDeliver } = args;
  const logger = args.logger.child({ stream, durable });
  await ensureNatsConsumer(jsm, stream, durable, {
    ackWaitMs,
    maxDeliver: Number.isFinite(maxDeliver) ? maxDeliver : -1,
  });
  const consumer = await js.consumers.get(stream, durable);
  const messages = await consumer.consume({ max_messages: maxBatch });

  const waiting: JsMsg[] = [];
  let running = 0;
  let stopping = false;
  let readerDone = false;
  const arrived = new Signal();
  const room = new Signal();

  const reader = (async () => {
    for await (const message of messages) {
      if (stopping) {
        message.nak();
        continue;
      }
      waiting.push(message);
      arrived.fire();
      while (!stopping && waiting.length + running >= maxBatch) await room.next();
    }
  })()
    .catch((error: unknown) => logger.error({ err: error }, 'JetStream consumer stopped'))
    .finally(() => {
      readerDone = true;
      arrived.fire();
    });

  const batches = (async () => {
    for (;;) {
      while (waiting.length === 0 && !readerDone && !stopping) await arrived.next();
      if (stopping || waiting.length === 0) return;
      // One turn of the event loop, not a wait for the network: the messages nats.js has already
      // received pass from its queue to `waiting` in microtasks, so they join this batch.
      await new Promise((resolve) => setImmediate(resolve));
      if (stopping) return;
      const batch = waiting.splice(0, maxBatch);
      running = batch.length;
      const outcomes = await runDurableBatch(handler, batch.map(toRaw), maxDeliver, logger);
      for (const [index, message] of batch.entries()) {
        const outcome = outcomes[index];
        if (outcome === 'ack') message.ack();
        else if (outcome === 'retry') message.nak(ackWaitMs);
        else message.term();
      }
      running = 0;
      room.fire();
    }
  })().catch((error: unknown) => logger.error({ err: error }, 'JetStream batch consumer stopped'));

  return {
    async stop() {
      stopping = true;
      room.fire();
      arrived.fire();
      // The iterator ends once it has handed over what it had received; the reader naks that.
      await messages.close();
      await reader;
      for (const message of waiting.splice(0)) message.nak();
      await batches;
    },
  };
}

/** A wake-up call; each next() waits for the following fire(). */
class Signal {
  #waiters: (() => void)[] = [];

  next(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  fire(): void {
    for (const resolve of this.#waiters.splice(0)) resolve();
  }
}

function toRaw(message: JsMsg): RawDurableMessage {
  return {
    subject: message.subject,
    data: message.string(),
    headers: fromNatsHeaders(message.headers),
    seq: message.seq,
    deliveryCount: message.info.deliveryCount,
    msgId: message.headers?.get('Nats-Msg-Id') ?? '',
  };
}
