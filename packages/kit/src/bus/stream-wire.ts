/**
 * How a streamed reply travels, the same on both buses (docs/adr/0042-streamed-replies.md). The
 * request carries `Pag-Stream: 1`; the answering side sends parts to the requester's reply
 * subject, each with its kind in `Pag-Stream-Part`:
 *
 * - `accepted`, at once, before the handler runs: it says where a cancel goes (on NATS, the part's
 *   own reply subject, an inbox of the answering service; every later part names it again);
 * - `event`, one per ReplyStream.send, in order: the name in `Pag-Stream-Event`, the data as JSON;
 * - `reply`, last: the handler's value, or its failure as error headers (error-headers.ts).
 *
 * The limits hold on both sides: the requester gives up after STREAM_IDLE_TIMEOUT_MS without an
 * event and after STREAM_MAX_DURATION_MS in all; the answering side sends at most
 * STREAM_MAX_EVENTS events. nats-server's response permission of a service answering a streamed
 * endpoint is sized from the same numbers (nats-server-config.ts).
 */
import type { Headers } from './types.ts';

export const STREAM_HEADERS = {
  request: 'Pag-Stream',
  part: 'Pag-Stream-Part',
  event: 'Pag-Stream-Event',
} as const;

/** Silence allowed between two events of a stream (the first event has the request's timeoutMs). */
export const STREAM_IDLE_TIMEOUT_MS = 60_000;
/** The longest a stream may last from the request to its reply. */
export const STREAM_MAX_DURATION_MS = 10 * 60_000;
/** The most events one streamed reply may carry before its reply. */
export const STREAM_MAX_EVENTS = 20_000;

/** Event names a stream may not use: a server-sent-events writer ends with these two. */
export const RESERVED_EVENT_NAMES: readonly string[] = ['done', 'error'];
const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export type StreamPartKind = 'accepted' | 'event' | 'reply';

/** One part as it travels: JSON text, headers already normalized. */
export interface WirePart {
  kind: StreamPartKind;
  /** For an event: its name. */
  event?: string;
  data: string;
  headers: Headers;
}

/** A letter, then up to 63 letters, digits, `_`, `-` or `.`; never `done` or `error`. */
export function assertEventName(name: string): void {
  if (!EVENT_NAME.test(name) || RESERVED_EVENT_NAMES.includes(name)) {
    throw new TypeError(
      `invalid stream event name "${name}": a letter, then letters, digits, _ - or .; not done or error`,
    );
  }
}

/** The part's headers with its kind and event name, as they travel. */
export function partHeaders(part: WirePart): Headers {
  return {
    ...part.headers,
    [STREAM_HEADERS.part]: part.kind,
    ...(part.event === undefined ? {} : { [STREAM_HEADERS.event]: part.event }),
  };
}

/** The part a message carries; undefined when it is not a part of a stream. */
export function partOf(data: string, headers: Headers): WirePart | undefined {
  const kind = headers[STREAM_HEADERS.part];
  if (kind !== 'accepted' && kind !== 'event' && kind !== 'reply') return undefined;
  const { [STREAM_HEADERS.part]: _kind, [STREAM_HEADERS.event]: event, ...rest } = headers;
  return { kind, ...(event === undefined ? {} : { event }), data, headers: rest };
}
