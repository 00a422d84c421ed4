/**
 * Runs user handlers the same way in both buses: a request handler always produces a reply
 * (its value, or its failure as error headers), an event handler's failure is logged (nobody
 * waits for it), a durable handler's outcome decides between ack, redelivery and giving up.
 */
import type { Logger } from '../log/logger.ts';
import { errorToHeaders } from './error-headers.ts';
import type {
  ConsumeOptions,
  DurableHandler,
  DurableMessage,
  EventHandler,
  Headers,
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
): Promise<Reply> {
  try {
    const result = await handler({
      subject: raw.subject,
      data: decodePayload(raw.data),
      headers: { ...raw.headers },
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
}

export interface ConsumeSettings {
  ackWaitMs: number;
  maxDeliver: number;
}

/** JetStream's defaults: 30 s ack wait, unlimited deliveries. */
export function consumeSettings(options: ConsumeOptions): ConsumeSettings {
  return {
    ackWaitMs: options.ackWaitMs ?? 30_000,
    maxDeliver: options.maxDeliver ?? Number.POSITIVE_INFINITY,
  };
}

/** `retry`: redeliver after ackWait. `give-up`: maxDeliver reached or undecodable; never redelivered. */
export type DurableOutcome = 'ack' | 'retry' | 'give-up';

export async function runDurableHandler(
  handler: DurableHandler,
  raw: RawDurableMessage,
  maxDeliver: number,
  logger: Logger,
): Promise<DurableOutcome> {
  const where = { subject: raw.subject, seq: raw.seq, msgId: raw.msgId, deliveryCount: raw.deliveryCount };
  let message: DurableMessage;
  try {
    message = { ...raw, data: decodePayload(raw.data), headers: { ...raw.headers } };
  } catch (error) {
    logger.error({ err: error, ...where }, 'durable message is not JSON; given up');
    return 'give-up';
  }
  try {
    await handler(message);
    return 'ack';
  } catch (error) {
    if (raw.deliveryCount >= maxDeliver) {
      logger.error(
        { err: error, ...where, maxDeliver },
        'durable handler failed on the last delivery; given up',
      );
      return 'give-up';
    }
    logger.warn({ err: error, ...where }, 'durable handler failed; the message will be redelivered');
    return 'retry';
  }
}
