/**
 * Step 5: bearer routes need a token in the Authorization header, and only there (a token in
 * the query string ends up in logs and is refused). The token is checked by introspection at
 * the auth service; while that service is not running, the answer is 503, never a guess.
 */
import { AppError } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { state } from './state.ts';

/** What introspection says about an active token. */
export interface TokenIdentity {
  accountId: string;
  clientId: string;
  scopes: string[];
  expiresAt: number | undefined;
}

/** RFC 7662 introspection, behind an interface so the gateway does not know how it is done. */
export interface Introspector {
  /** Resolves null for an unknown, expired or revoked token. */
  introspect(token: string, requestId: string): Promise<TokenIdentity | null>;
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;

export function authenticate(publicUrl: string, introspector: Introspector | undefined): RequestHandler {
  const challenge = `Bearer realm="${publicUrl}"`;
  return (req: Request, res: Response, next: NextFunction) => {
    if (typeof req.query.access_token === 'string') {
      next(new AppError('TOKEN_IN_QUERY', 'Tokens are not accepted in the query string.'));
      return;
    }
    if (state(res).route?.auth !== 'bearer') {
      next();
      return;
    }
    const header = req.get('authorization');
    if (header === undefined) {
      next(
        new AppError('AUTHENTICATION_REQUIRED', 'This endpoint needs a bearer token.', {
          headers: { 'www-authenticate': challenge },
        }),
      );
      return;
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) {
      next(
        new AppError('INVALID_TOKEN', 'The Authorization header must read "Bearer <token>".', {
          headers: { 'www-authenticate': `${challenge}, error="invalid_request"` },
        }),
      );
      return;
    }
    if (introspector === undefined) {
      next(
        new AppError('SERVICE_UNAVAILABLE', 'Tokens cannot be checked: the auth service is not running.', {
          expose: true,
        }),
      );
      return;
    }
    introspector.introspect(token, state(res).requestId).then((identity) => {
      if (identity === null) {
        next(
          new AppError('INVALID_TOKEN', 'The token is unknown, expired or revoked.', {
            headers: { 'www-authenticate': `${challenge}, error="invalid_token"` },
          }),
        );
        return;
      }
      state(res).identity = identity;
      next();
    }, next);
  };
}
