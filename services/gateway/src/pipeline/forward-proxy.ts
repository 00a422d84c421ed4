import type { Logger } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { IDENTITY_HEADER_NAMES, identityHeaders } from './identity-headers.ts';
import { state } from './state.ts';
import { upstreamProxy } from './upstream-proxy.ts';

const CLIENT_ADDRESS_HEADERS = new Set(['forwarded', 'x-real-ip']);

export interface ForwardProxyOptions {
  publicUrl: string;
  /** The proxy service's internal URL. */
  proxyUrl: string;
  /** A proxy that has not started its answer within this long is a 504 (upstream-proxy.ts). */
  timeoutMs: number;
  logger: Logger;
}

export function forwardProxy(options: ForwardProxyOptions): RequestHandler {
  const publicUrl = new URL(options.publicUrl);
  const forwardedProto = publicUrl.protocol.slice(0, -1);
  const proxy = upstreamProxy({
    target: options.proxyUrl,
    serviceName: 'proxy service',
    timeoutMs: options.timeoutMs,
    logger: options.logger,
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
