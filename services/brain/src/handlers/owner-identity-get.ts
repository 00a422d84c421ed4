/**
 * brain.owner-identity.get: the owner's identity as agents see it, seeded from the auth service on
 * a fresh account like the agent's read (identity/owner-identity.ts).
 */
import { BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerIdentityGet = handle(
  BrainOwnerEndpoints.identityGet,
  (caller, { accountId }, { identity }: BrainHandlerDeps) => identity.get(accountId, caller.requestId),
);
