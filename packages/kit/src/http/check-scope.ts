/**
 * The authenticated token must grant the scope the matched route needs, for this method and these
 * parameters (a connector's call may be a read or a write whatever its method; the contracts'
 * hierarchical matcher decides). 403 names the missing scope, in the message and in the
 * WWW-Authenticate challenge (RFC 6750 §3.1), so a client knows what to ask the owner for.
 */
import { insufficientScope, requiredScope, scopeGrants } from '@pag/contracts';
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
    next(
      insufficientScope(needed, {
        'www-authenticate': bearerChallenge(publicUrl, {
          error: 'insufficient_scope',
          path: req.path,
          scope: needed,
        }),
      }),
    );
  };
}
