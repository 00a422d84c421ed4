/**
 * Dispatch of `/api/v1/services/:service/*` to the proxy service over HTTP, after the token, its
 * scope and the agent's limits were checked. Streamed both ways with http-proxy-middleware: these
 * routes have no body schema, so the body steps leave the request unread and it flows to the
 * proxy as it arrives; the answer flows back the same way, whatever its size or media type.
 *
 * The path and query are forwarded as they came (the proxy serves the same paths). The
 * Authorization header passes through: the proxy introspects the token itself. Who is calling is
 * the gateway's word only: the client's own identity headers (`pag-*`, `x-request-id`) and every
 * `X-Forwarded-*`, `Forwarded` and `X-Real-IP` are dropped, then the gateway sets the identity
 * headers from introspection and X-Forwarded-For/Proto/Host from the socket and PUBLIC_URL.
 * Upstream failures become the error body: 503 when the proxy cannot be reached, 504 when it is
 * silent for the dispatch timeout, 502 when it breaks off.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, toErrorBody } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { IDENTITY_HEADER_NAMES, identityHeaders } from './identity-headers.ts';
import { state } from './state.ts';

const CLIENT_ADDRESS_HEADERS = new Set(['forwarded', 'x-real-ip']);

export interface ForwardProxyOptions {
  publicUrl: string;
  /** The proxy service's internal URL. */
  proxyUrl: string;
  /** A proxy silent for this long (no answer, or a stalled stream) is a 504. */
  timeoutMs: number;
  logger: Logger;
}

export function forwardProxy(options: ForwardProxyOptions): RequestHandler {
  const publicUrl = new URL(options.publicUrl);
  const forwardedProto = publicUrl.protocol.slice(0, -1);
  const timedOut = new WeakSet<IncomingMessage>();
  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: options.proxyUrl,
    changeOrigin: true,
    xfwd: false,
    followRedirects: false,
    autoRewrite: false,
    on: {
      proxyReq: (proxyReq, req) => {
        proxyReq.setTimeout(options.timeoutMs, () => {
          timedOut.add(req);
          proxyReq.destroy();
        });
      },
      error: (error, req, res) => {
        const appError = upstreamError(error, timedOut.has(req));
        if (appError.code !== 'SERVICE_UNAVAILABLE')
          options.logger.warn({ err: error }, 'proxy forwarding failed');
        // A failure after the answer started (or on a bare socket) can only cut the connection.
        if (!('writeHead' in res) || res.headersSent) return void res.destroy();
        const requestId = state(res as unknown as Response).requestId;
        res.writeHead(appError.status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(toErrorBody(appError, requestId)));
      },
    },
  });

  return (req: Request, res: Response, next: NextFunction) => {
    const { requestId, identity } = state(res);
    for (const name of Object.keys(req.headers)) {
      if (name.startsWith('x-forwarded-') || CLIENT_ADDRESS_HEADERS.has(name) || isIdentityHeader(name))
        delete req.headers[name];
    }
    Object.assign(req.headers, identityHeaders(req, requestId, identity), {
      'x-forwarded-proto': forwardedProto,
      'x-forwarded-host': publicUrl.host,
      'x-forwarded-for': req.socket.remoteAddress ?? '',
    });
    proxy(req, res, next).catch(next);
  };
}

/** Headers only the gateway may state: ours by name, and anything in our `pag-` namespace. */
function isIdentityHeader(name: string): boolean {
  return IDENTITY_HEADER_NAMES.has(name) || name.startsWith('pag-');
}

function upstreamError(error: Error & { code?: string }, timedOut: boolean): AppError {
  if (timedOut) {
    return new AppError('UPSTREAM_TIMEOUT', 'The proxy service did not answer in time.', {
      cause: error,
      expose: true,
    });
  }
  if (error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH') {
    return new AppError('SERVICE_UNAVAILABLE', 'The proxy service is not running.', {
      cause: error,
      expose: true,
    });
  }
  return new AppError('UPSTREAM_ERROR', 'The proxy service broke off the answer.', {
    cause: error,
    expose: true,
  });
}
