/**
 * The one way the gateway streams a request to a service over HTTP (the auth service's pages,
 * the proxy service's routes): http-proxy-middleware, redirects passed on unfollowed, the
 * service's own Host. Failures become the error body, recorded for the audit: 503 when the
 * service cannot be reached, 504 when it sends no answer within the timeout, 502 when it breaks
 * off before answering; after the answer started, a failure can only cut the connection. An answer
 * the service gives before the body has arrived (the proxy's 413) reaches the client as given.
 *
 * Every forwarded request carries the gateway's proof (pag-gateway-proof, kit's gateway-proof.ts):
 * an HMAC under GATEWAY_SECRET over the method, path and request id exactly as sent, set as the
 * last thing before the request leaves, so the services behind know it came through here.
 *
 * A replica that stops (a rolling restart) refuses new connections and closes idle ones, so a
 * request may fail before any answer without the service having seen it. Such a request is sent
 * once more, on a fresh connection (a new DNS lookup, which gives the replicas still running), when
 * that is safe: it has no body (a streamed body is gone once sent) and either never reached the
 * service (connection refused) or is idempotent (RFC 9110 §9.2.2) and failed on a reused
 * connection the service had closed. What still fails that way is 503 with Retry-After: the client
 * may send it again (docs/adr/0057).
 *
 * The timeout covers the wait for the answer's head only. Once the answer streams, a pause is the
 * client's as often as the service's (a slow reader holds the stream back), so no idle timer runs
 * then: a 32 MiB download to a slow client must not be cut off as "upstream too slow".
 */
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { AppError, GATEWAY_PROOF_HEADER, MessageHeaders, toErrorBody } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { FORWARDING_OPTIONS, signGatewayRequest } from '@pag/kit';
import type { NextFunction, Response } from 'express';
import type { Options } from 'http-proxy-middleware';
import { createProxyMiddleware, proxyEventsPlugin } from 'http-proxy-middleware';
import { recordAuditReason } from './audit.ts';
import { state } from './state.ts';

export interface UpstreamProxyOptions {
  target: string;
  /** The service as the error messages name it, e.g. "auth service". */
  serviceName: string;
  /** How long the service may take to start its answer; then 504. */
  timeoutMs: number;
  /** GATEWAY_SECRET: signs every forwarded request. */
  gatewaySecret: string;
  logger: Logger;
  /** Reads the service's answer head before it is copied to the client (the proxy's call report). */
  onAnswer?: (answer: IncomingMessage, res: ServerResponse) => void;
}

/** Calls the service; failures are answered here, anything else goes to `next`. */
export type UpstreamProxy = (req: IncomingMessage, res: ServerResponse, next: NextFunction) => Promise<void>;

/** Methods whose repetition has the effect of one request (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);
/** How a connection the service closed shows: reset, or ended before any answer. */
const CLOSED = new Set(['ECONNRESET', 'EPIPE']);
/** How a service that is not there shows. */
const ABSENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

export function upstreamProxy(options: UpstreamProxyOptions): UpstreamProxy {
  const timedOut = new WeakSet<IncomingMessage>();
  /** Each request's last attempt, to tell a reused connection from a new one. */
  const attempts = new WeakMap<IncomingMessage, ClientRequest>();
  /** Requests whose first attempt failed in a way that allows a second. */
  const resend = new WeakSet<IncomingMessage>();
  const retried = new WeakSet<IncomingMessage>();
  const on: Options<IncomingMessage, ServerResponse>['on'] = {
    proxyReq: (proxyReq, req) => {
      attempts.set(req, proxyReq);
      const requestId = proxyReq.getHeader(MessageHeaders.requestId);
      proxyReq.setHeader(
        GATEWAY_PROOF_HEADER,
        signGatewayRequest(options.gatewaySecret, {
          method: proxyReq.method,
          path: proxyReq.path,
          requestId: typeof requestId === 'string' ? requestId : '',
        }),
      );
      proxyReq.setTimeout(options.timeoutMs, () => {
        timedOut.add(req);
        proxyReq.destroy();
      });
    },
    proxyRes: (proxyRes, _req, res) => {
      // The answer has started: from here its pace is the client's business too.
      proxyRes.socket?.setTimeout(0);
      options.onAnswer?.(proxyRes, res);
      // Connection is hop-by-hop (RFC 9110 §7.6.1): the service closing its connection to us says
      // nothing about the client's. Passed on (http-proxy copies it), a service's early answer
      // to a body still arriving (e.g. the proxy's 413) would close the client's connection
      // while it writes, and the client would get a reset instead of the answer; without it,
      // the client's own Connection header decides and http-proxy reads off the rest of the body.
      delete proxyRes.headers.connection;
    },
    error: (error, req, res) => {
      const failure = failureOf(error, attempts.get(req), timedOut.has(req));
      if (!('writeHead' in res) || res.headersSent) return void res.destroy();
      if (!retried.has(req) && mayResend(req, failure)) {
        resend.add(req);
        return;
      }
      const appError = upstreamError(options.serviceName, error, failure);
      if (appError.code !== 'SERVICE_UNAVAILABLE')
        options.logger.warn({ err: error, service: options.serviceName }, 'forwarding failed');
      const response = res as unknown as Response;
      recordAuditReason(response, appError.code);
      res.writeHead(appError.status, {
        ...appError.headers,
        'content-type': 'application/json; charset=utf-8',
      });
      res.end(JSON.stringify(toErrorBody(appError, state(response).requestId)));
    },
  };
  // Parsed once: a string target is parsed into a URL on every request (httpxy's _createProxyFn).
  const target = new URL(options.target);
  const pooled = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target,
    ...FORWARDING_OPTIONS,
    plugins: [proxyEventsPlugin],
    on,
  });
  // No agent: a connection of its own, opened (and looked up) for this attempt only.
  const fresh = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target,
    ...FORWARDING_OPTIONS,
    plugins: [proxyEventsPlugin],
    agent: false,
    on,
  });
  return async (req, res, next) => {
    await pooled(req, res, (error?: unknown) => {
      if (!resend.has(req)) next(error);
    });
    if (!resend.has(req)) return;
    resend.delete(req);
    retried.add(req);
    await fresh(req, res, next);
  };
}

/** What went wrong before the answer: too slow, nobody there, or a connection the service closed. */
type Failure = 'timeout' | 'absent' | 'closed-reused' | 'broken';

function failureOf(
  error: Error & { code?: string },
  attempt: ClientRequest | undefined,
  timedOut: boolean,
): Failure {
  if (timedOut) return 'timeout';
  if (error.code !== undefined && ABSENT.has(error.code)) return 'absent';
  if (error.code !== undefined && CLOSED.has(error.code) && attempt?.reusedSocket === true)
    return 'closed-reused';
  return 'broken';
}

/** Sent again only without a body, and only if the service never saw it or seeing it twice is harmless. */
function mayResend(req: IncomingMessage, failure: Failure): boolean {
  const bodiless =
    req.headers['transfer-encoding'] === undefined &&
    (req.headers['content-length'] === undefined || req.headers['content-length'] === '0');
  if (!bodiless) return false;
  if (failure === 'absent') return true;
  return failure === 'closed-reused' && IDEMPOTENT.has(req.method ?? '');
}

function upstreamError(service: string, error: Error, failure: Failure): AppError {
  switch (failure) {
    case 'timeout':
      return new AppError('UPSTREAM_TIMEOUT', `The ${service} did not answer in time.`, {
        cause: error,
        expose: true,
      });
    case 'absent':
      return new AppError('SERVICE_UNAVAILABLE', `The ${service} is not running.`, {
        cause: error,
        expose: true,
      });
    case 'closed-reused':
      // A service closes a connection between requests when it stops: it is restarting.
      return new AppError('SERVICE_UNAVAILABLE', `The ${service} closed the connection before answering.`, {
        cause: error,
        expose: true,
      });
    case 'broken':
      return new AppError('UPSTREAM_ERROR', `The ${service} broke off the answer.`, {
        cause: error,
        expose: true,
      });
  }
}
