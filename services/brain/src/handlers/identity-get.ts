/**
 * brain.identity.get (GET /api/v1/identity): the owner's identity, seeded from the auth service
 * on a fresh account (identity/owner-identity.ts); the auth service's failure is this reply's.
 */
import type { Identity } from '@pag/contracts';
import type { BusMessage } from '@pag/kit';
import { readCaller, requireRouteScope } from './caller.ts';
import type { BrainApiDeps } from './mod.ts';

export function identityGet({ identity }: BrainApiDeps) {
  return async (msg: BusMessage<unknown>): Promise<Identity> => {
    const caller = readCaller(msg);
    requireRouteScope(caller, 'identity');
    return identity.get(caller.accountId, caller.requestId);
  };
}
