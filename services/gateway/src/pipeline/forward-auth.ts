/**
 * Step 2 for the auth service's public paths (OAuth endpoints, discovery, sign-up, login, the
 * dashboard, /auth.md): streamed to the auth service as they are, before route lookup and body
 * parsing. The gateway alone states who the client is: every incoming X-Forwarded-* and
 * Forwarded header is dropped and X-Forwarded-Proto/Host (from PUBLIC_URL) and X-Forwarded-For
 * (the socket's peer) are set afresh. Redirects are passed to the browser unchanged, never
 * followed (these paths are outside /api/v1). Upstream failures become the error body: 503 when
 * auth cannot be reached, 504 when it is too slow, 502 when it breaks off.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError, toErrorBody } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { recordAuditReason } from './audit.ts';
import { state } from './state.ts';

/** Client-address headers besides X-Forwarded-*: only the gateway may say who the client is. */
const SPOOFABLE = new Set(['forwarded', 'x-real-ip']);
const EXACT = new Set(['/signup', '/login', '/logout', '/dashboard', '/auth.md']);
const PREFIXES = ['/.well-known/', '/oauth/', '/interaction/', '/dashboard/'];

/** Whether a path belongs to the auth service's public pages and protocol endpoints. */
export function isAuthPath(path: string): boolean {
  return EXACT.has(path) || PREFIXES.some((prefix) => path.startsWith(prefix));
}

export interface ForwardAuthOptions {
  publicUrl: string;
  /** The auth service's internal URL; undefined: its paths answer 503. */
  authUrl: string | undefined;
  /** An auth service silent for this long is a 504. */
  timeoutMs: number;
  logger: Logger;
}

export function forwardAuth(options: ForwardAuthOptions): RequestHandler {
  const { authUrl } = options;
  if (authUrl === undefined) {
    return (req: Request, _res: Response, next: NextFunction) => {
      if (!isAuthPath(req.path)) return next();
      next(new AppError('SERVICE_UNAVAILABLE', 'The auth service is not running.', { expose: true }));
    };
  }
  const publicUrl = new URL(options.publicUrl);
  const forwardedProto = publicUrl.protocol.slice(0, -1);
  const timedOut = new WeakSet<IncomingMessage>();
  const proxy = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: authUrl,
    // The auth service sees its own address as Host; the public host travels in X-Forwarded-Host.
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
          options.logger.warn({ err: error }, 'auth forwarding failed');
        if (!('writeHead' in res)) return void res.destroy();
        if (res.headersSent) return void res.destroy();
        const requestId = state(res as unknown as Response).requestId;
        recordAuditReason(res as unknown as Response, appError.code);
        res.writeHead(appError.status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(toErrorBody(appError, requestId)));
      },
    },
  });

  return (req: Request, res: Response, next: NextFunction) => {
    if (!isAuthPath(req.path)) return next();
    state(res).forwardedTo = 'auth';
    for (const name of Object.keys(req.headers)) {
      if (name.startsWith('x-forwarded-') || SPOOFABLE.has(name)) delete req.headers[name];
    }
    req.headers['x-forwarded-proto'] = forwardedProto;
    req.headers['x-forwarded-host'] = publicUrl.host;
    req.headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    req.headers['x-request-id'] = state(res).requestId;
    proxy(req, res, next).catch(next);
  };
}

function upstreamError(error: Error & { code?: string }, timedOut: boolean): AppError {
  if (timedOut) {
    return new AppError('UPSTREAM_TIMEOUT', 'The auth service did not answer in time.', {
      cause: error,
      expose: true,
    });
  }
  if (error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH') {
    return new AppError('SERVICE_UNAVAILABLE', 'The auth service is not running.', {
      cause: error,
      expose: true,
    });
  }
  return new AppError('UPSTREAM_ERROR', 'The auth service broke off the answer.', {
    cause: error,
    expose: true,
  });
}
