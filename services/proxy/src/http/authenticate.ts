/**
 * Step 2: the caller's bearer token, checked here by RFC 7662 introspection at the auth service
 * (the gateway checked it too; the identity headers it adds are never taken as proof). The token
 * must be active, issued for this API (`${PUBLIC_URL}/api/v1`, RFC 8707) and act for an owner
 * account; otherwise 401 with the RFC 6750/9728 challenge. The auth service down or slow is
 * 503/504 (the introspection client's errors), never a 401.
 */
import { API_PREFIX, AppError } from '@pag/contracts';
import type { ActiveToken } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { state } from './state.ts';

/** RFC 7662 introspection as this step needs it (kit's IntrospectionClient fits). */
export interface TokenIntrospector {
  introspect(token: string, options?: { requestId?: string }): Promise<ActiveToken | null>;
}

const BEARER = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)$/i;
const AccountId = z.uuid();

/** Where the API's protected-resource metadata is (RFC 9728, path-inserted form). */
export function resourceMetadataUrl(publicUrl: string): string {
  return `${publicUrl}/.well-known/oauth-protected-resource${API_PREFIX}`;
}

function challenge(publicUrl: string, error?: string): string {
  const metadata = `resource_metadata="${resourceMetadataUrl(publicUrl)}"`;
  return error === undefined ? `Bearer ${metadata}` : `Bearer ${metadata}, error="${error}"`;
}

export function authenticate(publicUrl: string, introspector: TokenIntrospector): RequestHandler {
  const apiAudience = `${publicUrl}${API_PREFIX}`;
  const refuse = (message: string, error = 'invalid_token') =>
    new AppError('INVALID_TOKEN', message, { headers: { 'www-authenticate': challenge(publicUrl, error) } });

  const identify = async (req: Request, res: Response): Promise<void> => {
    const header = req.get('authorization');
    if (header === undefined) {
      throw new AppError('AUTHENTICATION_REQUIRED', 'This endpoint needs a bearer token.', {
        headers: { 'www-authenticate': challenge(publicUrl) },
      });
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined)
      throw refuse('The Authorization header must read "Bearer <token>".', 'invalid_request');
    const active = await introspector.introspect(token, { requestId: state(res).requestId });
    if (active === null) throw refuse('The token is unknown, expired or revoked.');
    if (!active.audience.includes(apiAudience)) {
      throw refuse(`The token was issued for another audience; this API accepts ${apiAudience}.`);
    }
    const accountId = AccountId.safeParse(active.accountId);
    if (!accountId.success) throw refuse('The token acts for no owner account.');
    state(res).accountId = accountId.data;
    state(res).scopes = active.scopes;
  };

  return (req: Request, res: Response, next: NextFunction) => {
    identify(req, res).then(() => next(), next);
  };
}
