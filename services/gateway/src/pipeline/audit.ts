/**
 * Every request that reaches the pipeline yields exactly one audit event on the AUDIT stream, and
 * its answer is not sent before JetStream (or, embedded, the in-memory stream) acknowledged it.
 * Runs right after the request id and security headers, so it sees every later answer: accepted,
 * refused, 404, 413, 429, 5xx and the auth service's forwarded pages alike.
 *
 * The answer is held by an AuditGate from its first byte: an answer written at once (every JSON
 * answer, redirects, errors) is recorded with its exact size; a streamed one (forwarded) is
 * recorded when its head is ready, with its declared Content-Length, and flows after the ack.
 * When the stream cannot take the event (a rejection, or no ack within AUDIT_ACK_TIMEOUT_MS)
 * nothing of the held answer is sent: the client gets 503 SERVICE_UNAVAILABLE instead and the
 * request is logged with its id. A bus already known to be down refuses before the request runs.
 * A client that goes away before any answer is recorded with status 499.
 *
 * A call dispatched to the proxy is one row, this one (docs/adr/0069): the proxy tells what it
 * did before its answer starts (recordProxiedCall: over HTTP in its answer's header, in process by
 * a call), and the event names the service (`target`) and the upstream host, path, status and
 * latency (`detail`), and takes the proxy's refusal code as its reason.
 *
 * Never in the event: the token, the query string, headers, bodies.
 */
import { randomUUID } from 'node:crypto';
import type { ProxiedCall, RequestAuditEvent } from '@pag/contracts';
import { AppError, AuditStream, auditSubject, toErrorBody } from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isoTime } from '../domain/iso-time.ts';
import { AuditGate } from './audit-gate.ts';
import type { PipelineState } from './state.ts';
import { state } from './state.ts';

/** How long an answer waits for the stream's ack before it becomes a 503. */
export const AUDIT_ACK_TIMEOUT_MS = 3_000;
/** Status of a request whose client went away before any answer (nginx's convention). */
export const CLIENT_CLOSED_STATUS = 499;

const SUBJECT = auditSubject('gateway');

/** The AUDIT stream as the bus declares it (idempotent; every replica does it at start). */
export const auditStreamDefinition = { name: AuditStream.name, subjects: [...AuditStream.subjects] };

/** Why a request was refused or failed: the error code the error handler answered with. */
const reasons = new WeakMap<Response, string>();

export function recordAuditReason(res: Response, code: string): void {
  reasons.set(res, code);
}

/**
 * The proxy's account of a call, told before its answer starts (over HTTP in its answer's
 * header, in process by a call): the request's one audit event carries it, so a proxied call is
 * one row with the service, the upstream host, path, status and time, and the refusal's code.
 * Kept on the gateway's own state of the request, which the audit step holds from its start
 * (handed over in process, `res.locals` is the proxy's by then: hand-to-proxy.ts keeps the
 * gateway's). A field, not a map keyed by the response: one set per call (docs/adr/0074).
 */
export function recordProxiedCall(gateway: PipelineState, call: ProxiedCall): void {
  gateway.proxiedCall = call;
}

export interface AuditOptions {
  bus: Bus;
  logger: Logger;
  ackTimeoutMs?: number;
}

export function audit(options: AuditOptions): RequestHandler {
  const { bus, logger } = options;
  const timeoutMs = options.ackTimeoutMs ?? AUDIT_ACK_TIMEOUT_MS;

  return (req: Request, res: Response, next: NextFunction) => {
    const arrivedAt = Date.now();
    const path = req.path;
    const bytesIn = requestBytes(req);
    // Held from here: a later step may give res.locals to another pipeline (hand-to-proxy.ts).
    const pipeline = state(res);
    const { requestId } = pipeline;
    if (!bus.isReady()) {
      logger.error({ requestId }, 'audit stream unreachable: request refused unrecorded');
      res.status(503).json(toErrorBody(unrecorded(), requestId));
      return;
    }

    const record = (status: number, bytesOut: number | null, reason: string | null): RequestAuditEvent => {
      const { identity, startedAt, clientAddress } = pipeline;
      return {
        kind: 'request',
        eventId: randomUUID(),
        source: 'gateway',
        requestId,
        time: isoTime(arrivedAt),
        accountId: identity?.accountId ?? null,
        clientId: identity?.clientId ?? null,
        agentId: identity?.agent?.id ?? null,
        tokenKind: identity?.tokenKind ?? null,
        clientAddress,
        method: req.method,
        path,
        status,
        decision: status < 400 ? 'allowed' : status < 500 ? 'denied' : 'error',
        reason,
        ...proxiedFacts(pipeline.proxiedCall),
        latencyMs: Number(process.hrtime.bigint() - startedAt) / 1e6,
        bytesIn: bytesIn(),
        bytesOut,
      };
    };
    const publish = (event: RequestAuditEvent) =>
      bus.publishDurable(SUBJECT, event, { msgId: event.eventId, timeoutMs });

    const gate = new AuditGate(res, () => {
      const { status, bytesOut } = gate.answer();
      const reason = reasons.get(res) ?? pipeline.proxiedCall?.reason ?? null;
      const event = record(status, bytesOut, status >= 400 ? reason : null);
      publish(event).then(
        () => gate.release(),
        (error: unknown) => {
          logger.error({ err: error, requestId, status }, 'audit event not stored: answered 503 instead');
          gate.replace(503, JSON.stringify(toErrorBody(unrecorded(error), requestId)));
        },
      );
    });
    res.once('close', () => {
      if (!gate.open) return;
      gate.abandon();
      publish(record(CLIENT_CLOSED_STATUS, 0, 'CLIENT_CLOSED_REQUEST')).catch((error: unknown) => {
        logger.error({ err: error, requestId }, 'audit event of an abandoned request not stored');
      });
    });
    next();
  };
}

/** A proxied call's service as the target, and what was called upstream as the detail. */
function proxiedFacts(call: ProxiedCall | undefined): Pick<RequestAuditEvent, 'target' | 'detail'> {
  if (call === undefined || call.service === null) return {};
  const { upstream } = call;
  if (upstream === null) return { target: call.service, detail: {} };
  return {
    target: call.service,
    detail: {
      upstreamHost: upstream.host,
      upstreamPath: upstream.path,
      upstreamStatus: upstream.status,
      upstreamLatencyUs: Math.round(upstream.latencyMs * 1000),
    },
  };
}

function unrecorded(cause?: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The request could not be recorded in the audit log.', {
    cause,
    expose: true,
    hint: 'Every request is recorded before it is answered, and the audit stream is not reachable right now; retry later.',
  });
}

/**
 * Body bytes of the request: its Content-Length (Node's parser and body-parser hold the body to
 * it), or for a chunked body the bytes received so far, counted where Node's HTTP parser hands
 * them to the stream (`push`), which does not switch the stream to flowing mode as a 'data'
 * listener would.
 */
function requestBytes(req: Request): () => number {
  const declared = req.headers['content-length'];
  if (declared !== undefined) {
    const length = Number(declared);
    return () => (Number.isInteger(length) && length >= 0 ? length : 0);
  }
  if (req.headers['transfer-encoding'] === undefined) return () => 0;
  let received = 0;
  const push = req.push;
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk instanceof Uint8Array) received += chunk.byteLength;
    return push.call(req, chunk, encoding);
  };
  return () => received;
}
