/**
 * GET /api/v1/tokens/me/capabilities: what the calling token may do, from its introspection and
 * the count this very request just took (no extra round trip): the scopes as issued and expanded
 * through the hierarchy, its client and agent, kind, expiry, the owner's plan, the agent's limits
 * with what it used of them (this request included), and every listed endpoint the scopes allow,
 * with whether its service runs now (domain/scope-listing.ts).
 */
import type { TokenCapabilities } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import type { DirectorySnapshot } from '@pag/kit';
import type { Request, Response } from 'express';
import { scopeListing } from '../domain/scope-listing.ts';
import type { UsageCounts, UsageWindow, UsageWindows } from '../domain/usage-windows.ts';
import type { TokenIdentity } from '../pipeline/authenticate.ts';
import type { LocalHandler } from '../pipeline/dispatch.ts';
import { state } from '../pipeline/state.ts';

type Usage = { windows: UsageWindows; counts: UsageCounts | null };

function limitOf(limit: number | null, used: number | undefined, window: UsageWindow) {
  if (limit === null) return null;
  // Counts are read for every agent with a limit; missing ones would be a bug, not zero.
  if (used === undefined) throw new AppError('INTERNAL_ERROR', 'A limit without its count.');
  return { limit, used, resetsAt: window.endsAt.toISOString() };
}

export function tokenCapabilities(
  identity: TokenIdentity,
  usage: Usage,
  directory: DirectorySnapshot,
): TokenCapabilities {
  const { windows, counts } = usage;
  const { expanded, endpoints } = scopeListing(identity.scopes, directory);
  return {
    clientId: identity.clientId,
    agent: identity.agent,
    tokenKind: identity.tokenKind,
    scopes: identity.scopes,
    expanded,
    expiresAt: identity.expiresAt === undefined ? null : new Date(identity.expiresAt * 1000).toISOString(),
    plan: identity.plan ?? 'free',
    limits: {
      daily: limitOf(identity.limits.daily, counts?.day, windows.day),
      monthly: limitOf(identity.limits.monthly, counts?.month, windows.month),
    },
    endpoints,
  };
}

export function tokenCapabilitiesHandler(directory: { snapshot(): DirectorySnapshot }): LocalHandler {
  return (_req: Request, res: Response) => {
    const { identity, usage } = state(res);
    // The route is a bearer route, so authentication and counting have run; otherwise it is a bug.
    if (identity === undefined || usage === undefined)
      throw new AppError('INTERNAL_ERROR', 'No token identity or usage on a bearer route.');
    res.status(200).json(tokenCapabilities(identity, usage, directory.snapshot()));
  };
}
