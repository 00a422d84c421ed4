/**
 * The `_prisma_migrations` table, kept exactly as Prisma Migrate keeps it so either tool reads the
 * other's history: the same DDL (prisma-engines sql-schema-connector, PostgreSQL flavour,
 * create_migrations_table), in the service's own schema (Prisma creates it in the schema of its
 * connection, the `schema` URL parameter), and rows shaped like Prisma's: a UUID v4 id, the
 * checksum, started_at and finished_at from the applier's clock, applied_steps_count 1 and logs
 * NULL for a migration that succeeded.
 */
import { randomUUID } from 'node:crypto';
import type { ClientBase } from 'pg';
import { quoteSchema } from './schema-name.ts';

export interface MigrationRecord {
  id: string;
  checksum: string;
  migrationName: string;
  logs: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  rolledBackAt: Date | null;
  appliedStepsCount: number;
}

const TABLE = '_prisma_migrations';

function table(schema: string): string {
  return `${quoteSchema(schema)}.${TABLE}`;
}

export async function migrationsTableExists(client: ClientBase, schema: string): Promise<boolean> {
  const result = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [
    table(schema),
  ]);
  return result.rows[0]?.found === true;
}

/** Prisma's DDL, column for column. */
export async function createMigrationsTable(client: ClientBase, schema: string): Promise<void> {
  await client.query(`CREATE TABLE ${table(schema)} (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`);
}

/** Every row, oldest first (Prisma orders by started_at too). */
export async function readMigrationRecords(client: ClientBase, schema: string): Promise<MigrationRecord[]> {
  const result = await client.query<MigrationRecord>(
    `SELECT id, checksum, migration_name AS "migrationName", logs, started_at AS "startedAt",
            finished_at AS "finishedAt", rolled_back_at AS "rolledBackAt", applied_steps_count AS "appliedStepsCount"
       FROM ${table(schema)} ORDER BY started_at`,
  );
  return result.rows;
}

export async function insertAppliedMigration(
  client: ClientBase,
  schema: string,
  row: { migrationName: string; checksum: string; startedAt: Date; finishedAt: Date },
): Promise<void> {
  await client.query(
    `INSERT INTO ${table(schema)} (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
     VALUES ($1, $2, $3, $4, $5, 1)`,
    [randomUUID(), row.checksum, row.migrationName, row.startedAt, row.finishedAt],
  );
}

/** Tables of the schema other than the history, for Prisma's "schema is not empty" refusal. */
export async function otherTables(client: ClientBase, schema: string): Promise<string[]> {
  const result = await client.query<{ name: string }>(
    'SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> $2 ORDER BY 1',
    [schema, TABLE],
  );
  return result.rows.map((row) => row.name);
}
