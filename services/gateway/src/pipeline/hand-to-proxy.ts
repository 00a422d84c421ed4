/**
 * Dispatch of `/api/v1/services/:service/*` to a proxy running in this process (the embedded
 * stack, docs/adr/0069): the request and its response go to the proxy's in-process entry by a
 * function call, with the caller this pipeline verified as an object, instead of a second HTTP
 * request over loopback (forward-proxy.ts, the separate-process deployment). No second parse and
 * write, no gateway proof, no second introspection, no second route match; the proxy runs the same steps after
 * authentication as behind its listener, answers on this response (its audit event held like any
 * other by the audit step, with what the proxy reports of the call: audit.ts) and strips the caller's own identity and forwarding headers before
 * anything goes upstream.
 */
import type { InProcessEntry } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { recordProxiedCall } from './audit.ts';
import { state } from './state.ts';

export function handToProxy(entry: InProcessEntry): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // Held from here: the proxy's steps keep their own state on res.locals.
    const gateway = state(res);
    const { requestId, startedAt, clientAddress, identity, route, params = {} } = gateway;
    if (identity === undefined || route === undefined) {
      next(new Error('a proxy route reached dispatch unauthenticated'));
      return;
    }
    const caller = {
      requestId,
      startedAt,
      clientAddress,
      accountId: identity.accountId,
      clientId: identity.clientId,
      scopes: identity.scopes,
      agentId: identity.agent?.id ?? null,
    };
    // The route this pipeline matched goes with it: the proxy does not match the path again.
    entry(req, res, { caller, route, params, report: (call) => recordProxiedCall(gateway, call) }, next);
  };
}
