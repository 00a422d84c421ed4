/**
 * What became of each call, told to the gateway for its one audit row of the request
 * (docs/adr/0069): the service, the call made upstream (host, path without the query, status,
 * time to the answer's head) or none when the proxy refused it first, and the refusal's or
 * failure's code. Always before the answer starts, since the gateway commits its row before it
 * lets the answer out. Behind the HTTP listener the facts go in the answer's PROXY_CALL_HEADER,
 * which the gateway takes off; handed over in process, to the gateway's report function.
 * Never a credential, a token, a header, a query string or a body.
 */
import type { AppError, ProxiedCall } from '@pag/contracts';
import { PROXY_CALL_HEADER } from '@pag/contracts';
import type { NextFunction, Request, Response } from 'express';
import type { ForwardedCall } from '../calls/audit-call.ts';
import { state } from './state.ts';

/** The HTTP entry's step: the facts of this request's call travel in its answer's header. */
export function reportInAnswer(_req: Request, res: Response, next: NextFunction): void {
  state(res).report = (call) => {
    if (!res.headersSent) res.setHeader(PROXY_CALL_HEADER, JSON.stringify(call));
  };
  next();
}

/** The contract's (and the audit detail's) limit on the path. */
const PATH_MAX = 500;

/** A call forwarded upstream, answered or not. */
export function forwardedCall(call: ForwardedCall): ProxiedCall {
  return {
    service: call.service,
    upstream: {
      host: call.host,
      path: call.path.slice(0, PATH_MAX),
      status: call.status,
      latencyMs: call.latencyMs,
    },
    reason: call.reason,
  };
}

/** The error handler's hook: a call refused (or failed) before it was forwarded. */
export function reportRefusal(res: Response, error: AppError): void {
  const current = state(res);
  current.report?.({
    service: current.connector?.name ?? current.params?.service?.slice(0, 100) ?? null,
    upstream: null,
    reason: error.code,
  });
}
