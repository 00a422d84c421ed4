/**
 * For tests in src/accounts and src/interactions: a real PostgreSQL with the auth migrations
 * applied, and a Prisma client on it.
 */
import { applyMigrations, createPrismaClient } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { authDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';

export interface AccountsTestDatabase extends AsyncDisposable {
  readonly postgres: TestPostgres;
  readonly db: PrismaClient;
  close(): Promise<void>;
}

export async function startAccountsTestDatabase(): Promise<AccountsTestDatabase> {
  const postgres = await startTestPostgres();
  try {
    await applyMigrations({ databaseUrl: postgres.url, ...authDatabase });
    const db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: authDatabase.schema });
    const close = async (): Promise<void> => {
      await db.$disconnect();
      await postgres.stop();
    };
    return { postgres, db, close, [Symbol.asyncDispose]: close };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}
