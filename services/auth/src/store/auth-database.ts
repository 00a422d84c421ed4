/**
 * The auth service's database client, on its own Postgres schema (database.ts). The composition
 * root (core.ts) opens it and hands it to each store; only src/store/ touches it.
 */
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import { authDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';

export type AuthDatabase = PrismaClient;

export function openAuthDatabase(options: { databaseUrl: string; logger: Logger }): AuthDatabase {
  return createPrismaClient(PrismaClient, {
    databaseUrl: options.databaseUrl,
    schema: authDatabase.schema,
    logger: options.logger,
  });
}
