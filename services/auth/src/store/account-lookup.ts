/**
 * oidc-provider's view of an owner account (its `findAccount`): the subject is the account id,
 * the claims are `sub` and `email`. An unknown or deleted account is undefined, so its tokens and
 * sessions stop working with it.
 */
import type { Account as OidcAccount } from 'oidc-provider';
import type { PrismaClient } from '../generated/prisma/client.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type AccountLookup = (accountId: string) => Promise<OidcAccount | undefined>;

export function accountLookup(prisma: PrismaClient): AccountLookup {
  return async (accountId) => {
    // The column is a uuid: anything else cannot be an account, and would be a query error.
    if (!UUID.test(accountId)) return undefined;
    const account = await prisma.account.findUnique({
      where: { id: accountId },
      select: { id: true, email: true },
    });
    if (account === null) return undefined;
    return {
      accountId: account.id,
      claims: () => ({ sub: account.id, email: account.email }),
    };
  };
}
