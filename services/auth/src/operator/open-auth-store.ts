/**
 * The auth service's data for operator commands (`pnpm pag …`): the same tables and rules as the
 * running service, without starting it.
 */
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import { AccountStore } from '../accounts/mod.ts';
import { authDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { RotationResult } from '../keys/signing-keys.ts';
import { rotateSigningKeys } from '../keys/signing-keys.ts';
import type { RegisteredClient } from '../store/registered-clients.ts';
import { listRegisteredClients } from '../store/registered-clients.ts';

export interface AuthStore extends AsyncDisposable {
  readonly prisma: PrismaClient;
  readonly accounts: AccountStore;
  /** Adds a signing key and retires the current ones; replicas sign with it from their next start. */
  rotateSigningKeys(keyEncryptionKey: Buffer): Promise<RotationResult>;
  /** The clients registered through RFC 7591, oldest first. */
  listClients(): Promise<RegisteredClient[]>;
}

export async function openAuthStore(options: { databaseUrl: string; logger: Logger }): Promise<AuthStore> {
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: options.databaseUrl,
    schema: authDatabase.schema,
    logger: options.logger,
  });
  return {
    prisma,
    accounts: new AccountStore(prisma),
    rotateSigningKeys: (keyEncryptionKey) => rotateSigningKeys({ prisma, keyEncryptionKey }),
    listClients: () => listRegisteredClients(prisma),
    [Symbol.asyncDispose]: () => prisma.$disconnect(),
  };
}
