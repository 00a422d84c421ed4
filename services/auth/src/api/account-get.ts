/**
 * auth.account.get: an owner account's public facts (OwnerAccount: id, email, plan, creation
 * time) for services that keep their own records about the owner (the brain seeds the owner's
 * identity profile from it). Only services on the bus can ask, and the answer never holds the
 * password hash. An unknown account is NOT_FOUND; a malformed query is refused before this runs.
 */
import { AppError, AuthEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { AuthHandlerDeps } from './auth-handler-deps.ts';

export const accountGet = handle(
  AuthEndpoints.accountGet,
  async (_caller, { accountId }, { accounts }: AuthHandlerDeps) => {
    const account = await accounts.findById(accountId);
    if (account === null) throw new AppError('NOT_FOUND', `No account ${accountId}.`);
    return {
      accountId: account.id,
      email: account.email,
      plan: account.plan,
      createdAt: account.createdAt.toISOString(),
    };
  },
);
