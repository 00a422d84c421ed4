/**
 * A durable pull consumer on JetStream driven by a DurableHandler: one message at a time, ack
 * when the handler resolves, nak with a delay of ackWaitMs when it throws, term when it is given
 * up. Closing stops pulling, hands back what was buffered (nak, so another replica takes it at
 * once) and waits for the message being handled.
 */
import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { Logger } from '../log/logger.ts';
import type { RawDurableMessage } from './handler-runner.ts';
import { runDurableHandler } from './handler-runner.ts';
import { fromNatsHeaders } from './nats-headers.ts';
import { ensureNatsConsumer } from './nats-streams.ts';
import type { DurableHandler } from './types.ts';

/**
 * Messages pulled ahead. Small on purpose: JetStream starts a message's ackWait when it reaches
 * the client, so a message waiting in a long buffer could be redelivered elsewhere meanwhile,
 * and replicas share the work better when none hoards it.
 */
const PULL_BATCH = 1;

export interface NatsConsumerArgs {
  stream: string;
  durable: string;
  handler: DurableHandler;
  ackWaitMs: number;
  maxDeliver: number;
  logger: Logger;
}

export async function startNatsConsumer(
  js: JetStreamClient,
  jsm: JetStreamManager,
  args: NatsConsumerArgs,
): Promise<{ stop(): Promise<void> }> {
  const { stream, durable, handler, ackWaitMs, maxDeliver, logger } = args;
  await ensureNatsConsumer(jsm, stream, durable, {
    ackWaitMs,
    maxDeliver: Number.isFinite(maxDeliver) ? maxDeliver : -1,
  });
  const consumer = await js.consumers.get(stream, durable);
  const messages = await consumer.consume({ max_messages: PULL_BATCH });
  let stopping = false;
  const loop = (async () => {
    for await (const message of messages) {
      if (stopping) {
        message.nak();
        continue;
      }
      const outcome = await runDurableHandler(handler, toRaw(message), maxDeliver, logger);
      if (outcome === 'ack') message.ack();
      else if (outcome === 'retry') message.nak(ackWaitMs);
      else message.term();
    }
  })().catch((error: unknown) => {
    logger.error({ err: error, stream, durable }, 'JetStream consumer stopped');
  });
  return {
    async stop() {
      stopping = true;
      await messages.close();
      await loop;
    },
  };
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
