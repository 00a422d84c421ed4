/**
 * GET /api/v1/tokens/me/capabilities: what the calling token may do, from its introspection
 * alone (no extra round trip): the scopes as issued and expanded through the hierarchy, its
 * client, expiry, the owner's plan and every listed endpoint with whether it is allowed.
 * Limits are null until per-agent limits exist (issue 5).
 */
import type { TokenCapabilities } from '@pag/contracts';
import { AppError, endpointsForScopes, expandScopes } from '@pag/contracts';
import type { Request, Response } from 'express';
import type { TokenIdentity } from '../pipeline/authenticate.ts';
import { state } from '../pipeline/state.ts';

export function tokenCapabilities(identity: TokenIdentity): TokenCapabilities {
  return {
    clientId: identity.clientId,
    tokenKind: 'oauth',
    scopes: identity.scopes,
    expanded: expandScopes(identity.scopes),
    expiresAt: identity.expiresAt === undefined ? null : new Date(identity.expiresAt * 1000).toISOString(),
    plan: identity.plan ?? 'free',
    limits: { daily: null, monthly: null },
    endpoints: endpointsForScopes(identity.scopes),
  };
}

export function tokenCapabilitiesHandler(_req: Request, res: Response): void {
  const { identity } = state(res);
  // The route is a bearer route, so authentication has run; reaching here without one is a bug.
  if (identity === undefined) throw new AppError('INTERNAL_ERROR', 'No token identity on a bearer route.');
  res.status(200).json(tokenCapabilities(identity));
}
