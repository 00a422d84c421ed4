/**
 * Step 6: the authenticated token must grant the scope the matched route needs (the contracts'
 * hierarchical matcher decides). 403 names the missing scope, in the message and in the
 * WWW-Authenticate challenge (RFC 6750 §3.1), so a client knows what to ask the owner for.
 */
import { AppError, requiredScope, scopeGrants } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { resourceMetadataUrl } from './authenticate.ts';
import { state } from './state.ts';

export function checkScope(publicUrl: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const { route, params = {}, identity } = state(res);
    if (route === undefined || route.auth !== 'bearer' || identity === undefined) {
      next();
      return;
    }
    const needed = requiredScope(route, params, req.method);
    if (needed === null || scopeGrants(identity.scopes, needed)) {
      next();
      return;
    }
    const challenge = `Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${resourceMetadataUrl(publicUrl)}"`;
    next(
      new AppError(
        'INSUFFICIENT_SCOPE',
        `This endpoint needs the scope ${needed}, which the token does not grant.`,
        {
          headers: { 'www-authenticate': challenge },
        },
      ),
    );
  };
}
