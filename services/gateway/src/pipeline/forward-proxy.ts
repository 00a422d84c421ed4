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
 * slower than the dispatch timeout to start its answer, 502 when it breaks off. The proxy's
 * account of the call comes back in its answer's PROXY_CALL_HEADER, for the audit row.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROXY_CALL_HEADER, ProxiedCall } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { recordProxiedCall } from './audit.ts';
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
  /** GATEWAY_SECRET: the proxy answers only what the gateway signed. */
  gatewaySecret: string;
  logger: Logger;
}

export function forwardProxy(options: ForwardProxyOptions): RequestHandler {
  const publicUrl = new URL(options.publicUrl);
  const forwardedProto = publicUrl.protocol.slice(0, -1);
  const proxy = upstreamProxy({
    target: options.proxyUrl,
    serviceName: 'proxy service',
    timeoutMs: options.timeoutMs,
    gatewaySecret: options.gatewaySecret,
    logger: options.logger,
    onAnswer: (answer, res) => takeCallReport(answer, res, options.logger),
  });

  return (req: Request, res: Response, next: NextFunction) => {
    const pipeline = state(res);
    for (const name of Object.keys(req.headers)) {
      if (name.startsWith('x-forwarded-') || CLIENT_ADDRESS_HEADERS.has(name) || isIdentityHeader(name))
        delete req.headers[name];
    }
    Object.assign(req.headers, identityHeaders(pipeline), {
      'x-forwarded-proto': forwardedProto,
      'x-forwarded-host': publicUrl.host,
      'x-forwarded-for': pipeline.clientAddress,
    });
    proxy(req, res, next).catch(next);
  };
}

/** Headers only the gateway may state: ours by name, and anything in our `pag-` namespace. */
function isIdentityHeader(name: string): boolean {
  return IDENTITY_HEADER_NAMES.has(name) || name.startsWith('pag-');
}

/**
 * The proxy's account of the call (PROXY_CALL_HEADER), taken off its answer before the head is
 * copied to the client, for this request's one audit row (audit.ts, docs/adr/0069). Only the
 * proxy's own answer carries one: it drops such headers from what a connected service answers.
 */
function takeCallReport(answer: IncomingMessage, res: ServerResponse, logger: Logger): void {
  const header = answer.headers[PROXY_CALL_HEADER];
  delete answer.headers[PROXY_CALL_HEADER];
  if (typeof header !== 'string') return;
  const call = parseCallReport(header);
  if (call === null) return void logger.warn('the proxy answered with an unreadable call report');
  recordProxiedCall(state(res as Response), call);
}

function parseCallReport(header: string): ProxiedCall | null {
  try {
    const parsed = ProxiedCall.safeParse(JSON.parse(header));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
