/**
 * The auth service's data for operator commands (`pnpm pag …`): the same tables and rules as the
 * running service, without starting it.
 */
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import { AccountStore } from '../accounts/mod.ts';
import { PrismaClient } from '../generated/prisma/client.ts';

export interface AuthStore extends AsyncDisposable {
  readonly prisma: PrismaClient;
  readonly accounts: AccountStore;
}

export async function openAuthStore(options: { databaseUrl: string; logger: Logger }): Promise<AuthStore> {
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: options.databaseUrl,
    schema: 'auth',
    logger: options.logger,
  });
  return {
    prisma,
    accounts: new AccountStore(prisma),
    [Symbol.asyncDispose]: () => prisma.$disconnect(),
  };
}
