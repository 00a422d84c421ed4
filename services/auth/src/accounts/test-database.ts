/**
 * For tests in src/accounts and src/interactions: a real PostgreSQL with the auth tables, and
 * a Prisma client on it. Applies the service's migrations when they exist; tables they do not
 * create yet (see NEEDS-SCHEMA.md) are created here from the same SQL, so the tests run before
 * and after auth-core's migrations land.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { applyMigrations, createPrismaClient } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { PrismaClient } from '../generated/prisma/client.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

const FALLBACK_SQL = [
  'CREATE SCHEMA IF NOT EXISTS "auth"',
  `DO $$ BEGIN CREATE TYPE "auth"."plan" AS ENUM ('free', 'pro', 'heavy');
   EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
  `CREATE TABLE IF NOT EXISTS "auth"."accounts" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "plan" "auth"."plan" NOT NULL DEFAULT 'free',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id"))`,
  'CREATE UNIQUE INDEX IF NOT EXISTS "accounts_email_key" ON "auth"."accounts"("email")',
  `CREATE TABLE IF NOT EXISTS "auth"."login_attempts" (
    "key_hash" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "last_failure_at" TIMESTAMPTZ(3) NOT NULL,
    "locked_until" TIMESTAMPTZ(3),
    CONSTRAINT "login_attempts_pkey" PRIMARY KEY ("key_hash"))`,
  'CREATE INDEX IF NOT EXISTS "login_attempts_last_failure_at_idx" ON "auth"."login_attempts"("last_failure_at")',
];

export interface AccountsTestDatabase extends AsyncDisposable {
  readonly postgres: TestPostgres;
  readonly db: PrismaClient;
  close(): Promise<void>;
}

export async function startAccountsTestDatabase(): Promise<AccountsTestDatabase> {
  const postgres = await startTestPostgres();
  try {
    if (existsSync(MIGRATIONS_DIR)) {
      await applyMigrations({ databaseUrl: postgres.url, schema: 'auth', migrationsDir: MIGRATIONS_DIR });
    }
    const db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: 'auth' });
    for (const statement of FALLBACK_SQL) await db.$executeRawUnsafe(statement);
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
