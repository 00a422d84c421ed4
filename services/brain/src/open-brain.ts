/**
 * The brain's stores on their own database client, for `pag persona|knowledge|identity`, which
 * change an owner's brain data in the database directly (like `pag audit list` reads the audit
 * log): the same stores, and the same first contact with an account as the service's first read
 * (meet: the default persona, and the identity seeded from the account's email). close()
 * disconnects the client.
 */
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import { brainDatabase } from './database.ts';
import { identityFromAccount } from './domain/seed-identity.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { DefaultPersona } from './identity/default-persona.ts';
import type { BrainStores } from './store/brain-stores.ts';
import { brainStores } from './store/brain-stores.ts';

export interface OpenBrain extends AsyncDisposable {
  readonly stores: BrainStores;
  /**
   * What the service does when it first meets an account: gives it its default persona if it has
   * none, and stores its identity from the email if none is stored (never overwriting one).
   */
  meet(account: { id: string; email: string }): Promise<void>;
  close(): Promise<void>;
}

export function openBrain(options: { databaseUrl: string; logger?: Logger }): OpenBrain {
  const prisma = createPrismaClient(PrismaClient, { ...options, schema: brainDatabase.schema });
  const stores = brainStores(prisma);
  const defaultPersona = new DefaultPersona(stores.personas);
  const close = () => prisma.$disconnect();
  return {
    stores,
    async meet(account) {
      await defaultPersona.ensure(account.id);
      await stores.identities.insertIfAbsent(account.id, identityFromAccount({ email: account.email }));
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
