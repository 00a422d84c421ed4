/**
 * Applies a service's SQL migrations (Prisma's layout) to its own Postgres schema and records them
 * in that schema's `_prisma_migrations` the way `prisma migrate deploy` does, so a database migrated
 * by either tool is recognised by the other (for the Prisma CLI, give it a URL with
 * `?schema=<schema>`, where it looks for its table).
 *
 * What it enforces:
 * - one applier at a time per database: Prisma's advisory lock, held for the whole run;
 * - the schema is created if missing; the history table is created with Prisma's DDL, and only in
 *   a schema without other tables (as Prisma's P3005);
 * - a recorded migration that started and never finished stops everything (as Prisma's P3009);
 * - an applied migration whose file changed stops everything (checksum mismatch);
 * - pending migrations run in directory-name order, each in one transaction together with its
 *   history row: on success the row has finished_at and applied_steps_count = 1; on failure the
 *   transaction rolls back, no row is written, and the error names the migration and the SQL error.
 *   This is stricter than Prisma, which runs the script outside a transaction and leaves a failed
 *   row behind. So a migration must not contain transaction control (BEGIN/COMMIT) or statements
 *   PostgreSQL refuses inside a transaction (CREATE INDEX CONCURRENTLY, VACUUM).
 */
import pg from 'pg';
import type { Logger } from '../log/logger.ts';
import { checksumMatches, migrationChecksum } from './migration-checksum.ts';
import { MigrationError } from './migration-error.ts';
import type { MigrationFile } from './migration-files.ts';
import { readMigrationFiles } from './migration-files.ts';
import { acquireMigrationLock, releaseMigrationLock } from './migration-lock.ts';
import type { MigrationRecord } from './migrations-table.ts';
import {
  createMigrationsTable,
  insertAppliedMigration,
  migrationsTableExists,
  otherTables,
  readMigrationRecords,
} from './migrations-table.ts';
import { assertSchemaName, quoteSchema } from './schema-name.ts';
import { describeSqlError } from './sql-error.ts';

export interface ApplyMigrationsOptions {
  /** Never logged: it carries the password. */
  databaseUrl: string;
  /** The service's Postgres schema; created when missing. */
  schema: string;
  /** The directory holding `<timestamp>_<name>/migration.sql` and migration_lock.toml. */
  migrationsDir: string;
  logger?: Logger;
  /** How long to wait for another applier to finish; defaults to 60 s. */
  lockTimeoutMs?: number;
}

export interface ApplyMigrationsResult {
  /** Migrations this run applied, in order. */
  applied: string[];
  /** Migrations found applied already (checksums verified). */
  alreadyApplied: string[];
}

export async function applyMigrations(options: ApplyMigrationsOptions): Promise<ApplyMigrationsResult> {
  assertSchemaName(options.schema);
  const files = await readMigrationFiles(options.migrationsDir);
  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'pag-migrate' });
  // A dropped connection also rejects the pending query; without a listener it would crash the process.
  client.on('error', (error) => options.logger?.warn({ err: error }, 'migration connection failed'));
  await client.connect();
  try {
    await acquireMigrationLock(client, options.lockTimeoutMs ?? 60_000);
    try {
      return await migrate(client, files, options);
    } finally {
      await releaseMigrationLock(client).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function migrate(
  client: pg.Client,
  files: MigrationFile[],
  { schema, logger }: ApplyMigrationsOptions,
): Promise<ApplyMigrationsResult> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteSchema(schema)}`);
  if (!(await migrationsTableExists(client, schema))) {
    const tables = await otherTables(client, schema);
    if (tables.length > 0) {
      throw new MigrationError(
        'SCHEMA_NOT_EMPTY',
        `Schema ${schema} has tables (${tables.join(', ')}) but no _prisma_migrations: it was not created by these ` +
          'migrations. Baseline it (prisma migrate resolve --applied <name>) or use an empty schema.',
      );
    }
    await createMigrationsTable(client, schema);
  }
  const records = await readMigrationRecords(client, schema);
  assertNoFailedMigration(records, schema);

  const live = records.filter((record) => record.rolledBackAt === null);
  const alreadyApplied: string[] = [];
  const pending: MigrationFile[] = [];
  for (const file of files) {
    const rows = live.filter((record) => record.migrationName === file.name);
    if (rows.length === 0) {
      pending.push(file);
    } else if (rows.every((row) => checksumMatches(file.script, row.checksum))) {
      alreadyApplied.push(file.name);
    } else {
      throw new MigrationError(
        'MIGRATION_MODIFIED',
        `Migration ${file.name} was changed after it was applied to schema ${schema} (checksum mismatch). ` +
          'Restore its original migration.sql and put the change in a new migration.',
        { migration: file.name },
      );
    }
  }
  const known = new Set(files.map((file) => file.name));
  const unknown = live
    .filter((record) => !known.has(record.migrationName))
    .map((record) => record.migrationName);
  if (unknown.length > 0)
    logger?.warn({ schema, migrations: unknown }, 'applied migrations missing from the directory');

  const applied: string[] = [];
  for (const file of pending) {
    logger?.info({ schema, migration: file.name }, 'applying migration');
    await applyOne(client, schema, file);
    applied.push(file.name);
  }
  logger?.info(
    { schema, applied: applied.length, alreadyApplied: alreadyApplied.length },
    'migrations up to date',
  );
  return { applied, alreadyApplied };
}

/** The script and its history row commit together or not at all. */
async function applyOne(client: pg.Client, schema: string, file: MigrationFile): Promise<void> {
  const startedAt = new Date();
  await client.query('BEGIN');
  try {
    // Unqualified names land in the service's schema, as with Prisma's `?schema=` connection.
    await client.query(`SET LOCAL search_path TO ${quoteSchema(schema)}`);
    await client.query(file.script);
    await insertAppliedMigration(client, schema, {
      migrationName: file.name,
      checksum: migrationChecksum(file.script),
      startedAt,
      finishedAt: new Date(),
    });
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new MigrationError(
      'MIGRATION_FAILED',
      `Migration ${file.name} failed in schema ${schema} and was rolled back (nothing of it was applied): ` +
        describeSqlError(error, file.script),
      { migration: file.name, cause: error },
    );
  }
}

function assertNoFailedMigration(records: MigrationRecord[], schema: string): void {
  const failed = records.filter((record) => record.finishedAt === null && record.rolledBackAt === null);
  if (failed.length === 0) return;
  const details = failed.map((record) => {
    const logs = record.logs?.trim() ? ` with the logs:\n${record.logs.trim()}` : '';
    return `The ${record.migrationName} migration started at ${record.startedAt.toISOString()} failed${logs}`;
  });
  throw new MigrationError(
    'FAILED_MIGRATION_RECORDED',
    `Schema ${schema} records failed migrations; no migration will be applied until they are resolved ` +
      `(as Prisma's P3009: fix the database, then prisma migrate resolve --applied or --rolled-back <name>).\n` +
      details.join('\n'),
    { migration: failed[0]?.migrationName },
  );
}
