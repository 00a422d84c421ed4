/**
 * Runs user handlers the same way in both buses: a request handler always produces a reply
 * (its value, or its failure as error headers; a streamed one: reply-stream.ts), an event handler's failure is logged (nobody
 * waits for it), a durable batch's outcome decides, message by message, between ack, redelivery
 * and giving up (one-at-a-time consumption is a batch of one).
 */
import type { Logger } from '../log/logger.ts';
import { errorToHeaders } from './error-headers.ts';
import type {
  ConsumeOptions,
  DurableBatchHandler,
  DurableHandler,
  DurableMessage,
  EventHandler,
  Headers,
  ReplyStream,
  RequestHandler,
} from './types.ts';
import { decodePayload, encodePayload } from './wire.ts';

/** A message as it travels: JSON text, headers already normalized. */
export interface RawMessage {
  subject: string;
  data: string;
  headers: Headers;
}

export interface Reply {
  data: string;
  headers: Headers;
}

export async function answerRequest(
  handler: RequestHandler,
  raw: RawMessage,
  logger: Logger,
  stream: ReplyStream | null = null,
): Promise<Reply> {
  try {
    const result = await handler({
      subject: raw.subject,
      data: decodePayload(raw.data),
      headers: { ...raw.headers },
      stream,
    });
    return { data: encodePayload(result), headers: {} };
  } catch (error) {
    return { data: encodePayload(null), headers: errorToHeaders(error, raw.subject, logger) };
  }
}

export async function runEventHandler(handler: EventHandler, raw: RawMessage, logger: Logger): Promise<void> {
  try {
    await handler({ subject: raw.subject, data: decodePayload(raw.data), headers: { ...raw.headers } });
  } catch (error) {
    logger.error({ err: error, subject: raw.subject }, 'bus event handler failed');
  }
}

export interface RawDurableMessage extends RawMessage {
  seq: number;
  deliveryCount: number;
  msgId: string;
  /**
   * In-memory bus only, on a confirmed stream (MemoryBusOptions.confirmedBy): the publisher's
   * payload itself for its confirming consumer, in place of `data` (docs/adr/0076).
   */
  handed?: { value: unknown };
}

export interface ConsumeSettings {
  ackWaitMs: number;
  maxDeliver: number;
  maxBatch: number;
}

/** JetStream's defaults: 30 s ack wait, unlimited deliveries; one message at a time unless asked. */
export function consumeSettings(options: ConsumeOptions & { maxBatch?: number }): ConsumeSettings {
  const maxBatch = options.maxBatch ?? 1;
  if (!Number.isInteger(maxBatch) || maxBatch < 1) {
    throw new RangeError(`maxBatch must be a positive integer, not ${maxBatch}`);
  }
  return {
    ackWaitMs: options.ackWaitMs ?? 30_000,
    maxDeliver: options.maxDeliver ?? Number.POSITIVE_INFINITY,
    maxBatch,
  };
}

/** One-at-a-time consumption is a batch of one. */
export function singleMessageBatches(handler: DurableHandler): DurableBatchHandler {
  return (messages) => handler(messages[0]!);
}

/** `retry`: redeliver after ackWait. `give-up`: maxDeliver reached or undecodable; never redelivered. */
export type DurableOutcome = 'ack' | 'retry' | 'give-up';

/**
 * Runs a batch handler and returns each message's outcome, in the batch's order. A message that
 * is not JSON is given up alone and never reaches the handler; when the handler throws, every
 * message is redelivered except those on their last allowed delivery, which are given up.
 */
export async function runDurableBatch(
  handler: DurableBatchHandler,
  raws: RawDurableMessage[],
  maxDeliver: number,
  logger: Logger,
): Promise<DurableOutcome[]> {
  const outcomes: DurableOutcome[] = raws.map(() => 'ack');
  const messages: DurableMessage[] = [];
  const handed: number[] = [];
  for (const [index, raw] of raws.entries()) {
    try {
      const { subject, seq, deliveryCount, msgId, handed: object } = raw;
      const data = object === undefined ? decodePayload(raw.data) : object.value;
      messages.push({ subject, data, headers: { ...raw.headers }, seq, deliveryCount, msgId });
      handed.push(index);
    } catch (error) {
      logger.error({ err: error, ...where(raw) }, 'durable message is not JSON; given up');
      outcomes[index] = 'give-up';
    }
  }
  if (messages.length === 0) return outcomes;
  try {
    await handler(messages);
    return outcomes;
  } catch (error) {
    const retried: number[] = [];
    for (const index of handed) {
      const raw = raws[index]!;
      if (raw.deliveryCount >= maxDeliver) {
        logger.error(
          { err: error, ...where(raw), maxDeliver },
          'durable handler failed on the last delivery; given up',
        );
        outcomes[index] = 'give-up';
      } else {
        outcomes[index] = 'retry';
        retried.push(raw.seq);
      }
    }
    if (retried.length > 0) {
      logger.warn({ err: error, seqs: retried }, 'durable handler failed; the messages will be redelivered');
    }
    return outcomes;
  }
}

function where(raw: RawDurableMessage) {
  return { subject: raw.subject, seq: raw.seq, msgId: raw.msgId, deliveryCount: raw.deliveryCount };
}
