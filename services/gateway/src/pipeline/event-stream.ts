/**
 * Step 6 for a stream route asked with `Accept: text/event-stream` (route-types.ts `stream`): the
 * service is asked for a streamed reply (kit's requestStream) and its parts become server-sent
 * events, each written through as it arrives: `event: <name>` / `data: <JSON>` for each event the
 * service sends, `event: done` with the reply (the route's JSON body), or `event: error` with the
 * error body when it fails after the first event. A failure before the first event is the usual
 * JSON error answer with its status (the error handler's), so a client can tell a refusal from a
 * stream.
 *
 * The head (200, `Content-Type: text/event-stream`, `Cache-Control: no-cache`,
 * `X-Accel-Buffering: no` for nginx-style proxies, no Content-Length) goes out with the first
 * event; the audit step holds it until the request's audit event is stored (docs/adr/0042), then
 * every event is written at once (no buffering, no compression; the socket has no Nagle delay).
 * The route's timeoutMs bounds the wait for the first event, kit's STREAM_IDLE_TIMEOUT_MS the
 * silence between events. A client that goes away cancels the request: the service's handler
 * sees its stream's signal abort.
 */
import type { AnyEndpoint, DispatchRequest } from '@pag/contracts';
import { AppError, toErrorBody } from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import { relayEndpointStream } from '@pag/kit';
import type { Request, Response } from 'express';
import { state } from './state.ts';

export interface EventStreamRequest {
  bus: Bus;
  endpoint: AnyEndpoint;
  message: DispatchRequest;
  headers: Record<string, string>;
  /** Until the first event (or the reply). */
  timeoutMs: number;
  /** The service's failure as the client should see it (dispatch's wording of bus failures). */
  failure: (error: unknown) => unknown;
  logger?: Logger | undefined;
}

/** Whether the client accepts server-sent events (a media range `text/event-stream` not at q=0). */
export function wantsEventStream(req: Request): boolean {
  const accept = req.headers.accept;
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';');
    if (type.trim().toLowerCase() !== 'text/event-stream') return false;
    return !params.some((param) => /^\s*q\s*=\s*0(\.0{0,3})?\s*$/i.test(param));
  });
}

/** Resolves once the reply was written, or the client went away; rejects before the first event. */
export async function streamEvents(req: Request, res: Response, ask: EventStreamRequest): Promise<void> {
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once('close', onClose);
  let started = false;
  try {
    const parts = relayEndpointStream(ask.bus, ask.endpoint, ask.message, {
      timeoutMs: ask.timeoutMs,
      headers: ask.headers,
      signal: gone.signal,
    });
    for await (const part of parts) {
      if (!started) {
        started = true;
        startEventStream(res);
      }
      await writeEvent(res, part.kind === 'event' ? part.event : 'done', part.data);
    }
    res.end();
  } catch (error) {
    // The client is gone: nobody to tell (the audit step recorded what it saw).
    if (gone.signal.aborted) return;
    if (!started) throw ask.failure(error);
    const appError = asAppError(ask.failure(error));
    const { requestId } = state(res);
    ask.logger?.warn({ err: appError.cause ?? appError, requestId, path: req.path }, 'event stream failed');
    await writeEvent(res, 'error', toErrorBody(appError, requestId));
    res.end();
  } finally {
    res.off('close', onClose);
  }
}

function startEventStream(res: Response): void {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
}

/** JSON has no raw line breaks, so each event's data is one `data:` line. */
async function writeEvent(res: Response, event: string, data: unknown): Promise<void> {
  if (res.destroyed || res.writableEnded) return;
  if (res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)) return;
  // A slow client (or the audit step holding the head): wait, so events queue up in one place.
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function asAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError('INTERNAL_ERROR', 'The streamed answer failed.', { cause: error });
}
