/**
 * brain.owner-identity.set: changes only the fields given (null clears an optional one); the email
 * stays the account's. IdentitySet has checked them: the time zone an IANA name, the locale a
 * BCP 47 tag, a 400 INVALID_REQUEST naming the field otherwise. A fresh account is seeded first,
 * so the fields not given keep what the auth service knows.
 */
import { BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerIdentitySet = handle(
  BrainOwnerEndpoints.identitySet,
  async (caller, { accountId, ...fields }, { stores, identity }: BrainHandlerDeps) => {
    await identity.get(accountId, caller.requestId);
    const changed = await stores.identities.update(accountId, fields);
    // Only a deletion after the seeding gets here; nothing in the brain deletes profiles.
    if (changed === null) throw new Error(`identity profile of ${accountId} vanished after its seeding`);
    caller.logger.info({ accountId, fields: Object.keys(fields) }, 'identity changed');
    return changed;
  },
);
