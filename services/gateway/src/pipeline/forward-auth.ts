/**
 * Step 2 for the auth service's public paths (OAuth endpoints, discovery, sign-up, login, the
 * dashboard, /auth.md): streamed to the auth service as they are, before route lookup and body
 * parsing. The gateway alone states who the client is: every incoming X-Forwarded-* and
 * Forwarded header is dropped and X-Forwarded-Proto/Host (from PUBLIC_URL) and X-Forwarded-For
 * (the socket's peer) are set afresh. Redirects are passed to the browser unchanged, never
 * followed (these paths are outside /api/v1). Upstream failures become the error body: 503 when
 * auth cannot be reached, 504 when it is too slow, 502 when it breaks off. Each request carries the
 * gateway's proof (upstream-proxy.ts): the auth service believes its X-Forwarded-For for that.
 */
import { AppError } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { state } from './state.ts';
import { upstreamProxy } from './upstream-proxy.ts';

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
  /** GATEWAY_SECRET, required with authUrl: the auth service answers only what the gateway signed. */
  gatewaySecret: string | undefined;
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
  if (options.gatewaySecret === undefined) throw new Error('GATEWAY_SECRET is required with AUTH_URL');
  const publicUrl = new URL(options.publicUrl);
  const forwardedProto = publicUrl.protocol.slice(0, -1);
  const proxy = upstreamProxy({
    target: authUrl,
    serviceName: 'auth service',
    timeoutMs: options.timeoutMs,
    gatewaySecret: options.gatewaySecret,
    logger: options.logger,
  });

  return (req: Request, res: Response, next: NextFunction) => {
    if (!isAuthPath(req.path)) return next();
    state(res).forwardedTo = 'auth';
    for (const name of Object.keys(req.headers)) {
      if (name.startsWith('x-forwarded-') || SPOOFABLE.has(name)) delete req.headers[name];
    }
    req.headers['x-forwarded-proto'] = forwardedProto;
    req.headers['x-forwarded-host'] = publicUrl.host;
    req.headers['x-forwarded-for'] = state(res).clientAddress;
    req.headers['x-request-id'] = state(res).requestId;
    proxy(req, res, next).catch(next);
  };
}
