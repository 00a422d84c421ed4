/**
 * The answering side of a streamed request, shared by both buses: `accepted` goes out at once
 * (it tells the requester where a cancel goes), then the handler runs with a ReplyStream whose
 * events go out in order, then its reply or its failure. A cancel from the requester (or the
 * requester being gone) aborts the stream's signal: `send` rejects from then on and the reply is
 * not sent. How parts travel is the bus's (StreamChannel); what they are is stream-wire.ts's.
 */
import type { Logger } from '../log/logger.ts';
import { BusCancelledError } from './errors.ts';
import type { RawMessage } from './handler-runner.ts';
import { answerRequest } from './handler-runner.ts';
import type { WirePart } from './stream-wire.ts';
import { assertEventName, STREAM_MAX_EVENTS } from './stream-wire.ts';
import type { ReplyStream, RequestHandler } from './types.ts';
import { encodePayload } from './wire.ts';

/** How one stream's parts reach its requester, in order. */
export interface StreamChannel {
  send(part: WirePart): void;
  /** Aborts when the requester cancels or is gone. */
  readonly cancelled: AbortSignal;
  /** The stream is over (replied or cancelled): release what the bus holds for it. */
  close(): void;
}

export async function answerStreamRequest(
  handler: RequestHandler,
  raw: RawMessage,
  logger: Logger,
  channel: StreamChannel,
): Promise<void> {
  try {
    channel.send({ kind: 'accepted', data: '', headers: {} });
    let replied = false;
    let sent = 0;
    const stream: ReplyStream = {
      signal: channel.cancelled,
      send: async (event, data) => {
        assertEventName(event);
        if (channel.cancelled.aborted) throw new BusCancelledError(raw.subject);
        if (replied) throw new Error(`the stream on ${raw.subject} has already ended`);
        if (sent >= STREAM_MAX_EVENTS) {
          throw new RangeError(`a stream carries at most ${STREAM_MAX_EVENTS} events (${raw.subject})`);
        }
        sent++;
        channel.send({ kind: 'event', event, data: encodePayload(data), headers: {} });
      },
    };
    const reply = await answerRequest(handler, raw, logger, stream);
    replied = true;
    if (!channel.cancelled.aborted) channel.send({ kind: 'reply', ...reply });
  } finally {
    channel.close();
  }
}
