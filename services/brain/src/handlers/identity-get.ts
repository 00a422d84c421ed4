/**
 * brain.identity.get (GET /api/v1/identity): the owner's identity, seeded from the auth service
 * on a fresh account (identity/owner-identity.ts); the auth service's failure is this reply's.
 */
import { BrainEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const identityGet = handle(
  BrainEndpoints.identityGet,
  (caller, _input, { identity }: BrainHandlerDeps) => identity.get(caller.accountId, caller.requestId),
);
