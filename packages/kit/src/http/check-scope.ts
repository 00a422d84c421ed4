/**
 * The authenticated token must grant the scope the matched route needs, for this method and these
 * parameters (a connector's call may be a read or a write whatever its method; the contracts'
 * hierarchical matcher decides). 403 names the missing scope, in the message and in the
 * WWW-Authenticate challenge (RFC 6750 §3.1), so a client knows what to ask the owner for; the
 * hint names how a token of the caller's kind gets it, and says so when a handshake cannot
 * (the contracts' token-remedies.ts, docs/adr/0062).
 */
import {
  AppError,
  insufficientScope,
  insufficientScopeHint,
  requiredScope,
  scopeGrants,
} from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { bearerChallenge } from './authenticate.ts';
import { resourceState } from './state.ts';

const NO_PARAMS: Record<string, string> = {};

export function checkScope(publicUrl: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const { route, params = NO_PARAMS, identity } = resourceState(res);
    if (route === undefined || route.auth !== 'bearer' || identity === undefined) {
      next();
      return;
    }
    const needed = requiredScope(route, params, req.method);
    if (needed === null || scopeGrants(identity.scopes, needed)) {
      next();
      return;
    }
    const refusal = insufficientScope(needed, {
      'www-authenticate': bearerChallenge(publicUrl, {
        error: 'insufficient_scope',
        path: req.path,
        scope: needed,
      }),
    });
    next(
      new AppError(refusal.code, refusal.message, {
        headers: refusal.headers,
        hint: insufficientScopeHint(needed, identity.tokenKind),
      }),
    );
  };
}
