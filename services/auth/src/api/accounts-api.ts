/**
 * auth.account.get: an owner account's public facts (OwnerAccount: id, email, plan, creation
 * time) for services that keep their own records about the owner (the brain seeds the owner's
 * identity profile from it). Only services on the bus can ask, and the answer never holds the
 * password hash. An unknown account is NOT_FOUND, a malformed query INVALID_REQUEST.
 */
import type { OwnerAccount } from '@pag/contracts';
import { AppError, AuthSubjects, OwnerAccountQuery } from '@pag/contracts';
import type { BusMessage, Subscription } from '@pag/kit';
import type { BusApiDeps } from './mod.ts';
import { QUEUE } from './mod.ts';

export async function serveAccountApi({ bus, core }: BusApiDeps): Promise<Subscription[]> {
  const get = async (msg: BusMessage<unknown>): Promise<OwnerAccount> => {
    const parsed = OwnerAccountQuery.safeParse(msg.data);
    if (!parsed.success)
      throw new AppError('INVALID_REQUEST', 'auth.account.get needs {"accountId": "<uuid>"}.', {
        cause: parsed.error,
      });
    const account = await core.accounts.findById(parsed.data.accountId);
    if (account === null) throw new AppError('NOT_FOUND', `No account ${parsed.data.accountId}.`);
    return {
      accountId: account.id,
      email: account.email,
      plan: account.plan,
      createdAt: account.createdAt.toISOString(),
    };
  };
  return [await bus.handle(AuthSubjects.accountGet, get, QUEUE)];
}
