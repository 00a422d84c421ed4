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
 * The timeout covers the wait for the answer's head only. Once the answer streams, a pause is the
 * client's as often as the service's (a slow reader holds the stream back), so no idle timer runs
 * then: a 32 MiB download to a slow client must not be cut off as "upstream too slow".
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, GATEWAY_PROOF_HEADER, MessageHeaders, toErrorBody } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { FORWARDING_OPTIONS, signGatewayRequest } from '@pag/kit';
import type { Response } from 'express';
import type { RequestHandler as ProxyHandler } from 'http-proxy-middleware';
import { createProxyMiddleware } from 'http-proxy-middleware';
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
}

export function upstreamProxy(options: UpstreamProxyOptions): ProxyHandler<IncomingMessage, ServerResponse> {
  const timedOut = new WeakSet<IncomingMessage>();
  return createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: options.target,
    ...FORWARDING_OPTIONS,
    on: {
      proxyReq: (proxyReq, req) => {
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
      proxyRes: (proxyRes) => {
        // The answer has started: from here its pace is the client's business too.
        proxyRes.socket?.setTimeout(0);
        // Connection is hop-by-hop (RFC 9110 §7.6.1): the service closing its connection to us says
        // nothing about the client's. Passed on (http-proxy copies it), a service's early answer
        // to a body still arriving (e.g. the proxy's 413) would close the client's connection
        // while it writes, and the client would get a reset instead of the answer; without it,
        // the client's own Connection header decides and http-proxy reads off the rest of the body.
        delete proxyRes.headers.connection;
      },
      error: (error, req, res) => {
        const appError = upstreamError(options.serviceName, error, timedOut.has(req));
        if (appError.code !== 'SERVICE_UNAVAILABLE')
          options.logger.warn({ err: error, service: options.serviceName }, 'forwarding failed');
        if (!('writeHead' in res) || res.headersSent) return void res.destroy();
        const response = res as unknown as Response;
        recordAuditReason(response, appError.code);
        res.writeHead(appError.status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(toErrorBody(appError, state(response).requestId)));
      },
    },
  });
}

function upstreamError(service: string, error: Error & { code?: string }, timedOut: boolean): AppError {
  if (timedOut)
    return new AppError('UPSTREAM_TIMEOUT', `The ${service} did not answer in time.`, {
      cause: error,
      expose: true,
    });
  if (error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH')
    return new AppError('SERVICE_UNAVAILABLE', `The ${service} is not running.`, {
      cause: error,
      expose: true,
    });
  return new AppError('UPSTREAM_ERROR', `The ${service} broke off the answer.`, {
    cause: error,
    expose: true,
  });
}
