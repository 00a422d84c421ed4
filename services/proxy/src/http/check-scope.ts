/**
 * Step 3: the token must grant the scope of the call (services:{name}[:{resource}]:read|write,
 * read or write as the connector classifies the call, e.g. Slack's chat.postMessage by GET is a
 * write; decided by the contracts' hierarchical matcher). 403 names the missing scope in the message and
 * in the RFC 6750 challenge, so the agent knows what to ask the owner for.
 */
import { AppError, scopeGrants } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { resourceMetadataUrl } from './authenticate.ts';
import { state } from './state.ts';

export function checkScope(publicUrl: string): RequestHandler {
  return (_req: Request, res: Response, next: NextFunction) => {
    const { requiredScope: needed, scopes = [] } = state(res);
    if (needed === undefined || scopeGrants(scopes, needed)) {
      next();
      return;
    }
    next(
      new AppError(
        'INSUFFICIENT_SCOPE',
        `This call needs the scope ${needed}, which the token does not grant.`,
        {
          headers: {
            'www-authenticate': `Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${resourceMetadataUrl(publicUrl)}"`,
          },
        },
      ),
    );
  };
}
