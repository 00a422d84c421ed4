import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import type { TestPostgres } from '../testing/postgres.ts';
import { startTestPostgres } from '../testing/postgres.ts';
import { MigrationError } from './migration-error.ts';
import { applyMigrations } from './migrations.ts';

const FIRST = '20240101000000_widgets';
const SECOND = '20240102000000_widget_row';
const THIRD = '20240103000000_gadgets';
const WIDGETS_SQL = 'CREATE TABLE widgets (id INTEGER PRIMARY KEY);\n';
/** sha256sum of WIDGETS_SQL, computed outside this code. */
const WIDGETS_CHECKSUM = '6fb90e77c0519137e371f68bfb91884843b0bb3bc27b38a6f8ac56148561f87b';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let postgres: TestPostgres;
let db: pg.Client;
let workDir: string;
let schemaCount = 0;

beforeAll(async () => {
  postgres = await startTestPostgres();
  db = new pg.Client({ connectionString: postgres.url });
  await db.connect();
  workDir = await mkdtemp(join(tmpdir(), 'pag-migrations-'));
});

afterAll(async () => {
  await db?.end();
  await postgres?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A fresh schema name and migrations directory holding `migrations` (name → SQL) and the lock file. */
async function fixture(migrations: Record<string, string>): Promise<{ schema: string; dir: string }> {
  schemaCount += 1;
  const schema = `svc_${schemaCount}`;
  const dir = join(workDir, schema);
  await mkdir(dir);
  await writeFile(join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n');
  await writeFile(join(dir, 'README.md'), 'not a migration\n');
  for (const [name, sql] of Object.entries(migrations)) await writeMigration(dir, name, sql);
  return { schema, dir };
}

async function writeMigration(dir: string, name: string, sql: string): Promise<void> {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, 'migration.sql'), sql);
}

function apply(schema: string, dir: string, lockTimeoutMs?: number) {
  return applyMigrations({ databaseUrl: postgres.url, schema, migrationsDir: dir, lockTimeoutMs });
}

async function failure(work: Promise<unknown>): Promise<MigrationError> {
  const error = await work.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof MigrationError)) throw new Error(`expected a MigrationError, got ${String(error)}`);
  return error;
}

async function history(schema: string) {
  const result = await db.query(`SELECT * FROM "${schema}"._prisma_migrations ORDER BY started_at`);
  return result.rows;
}

async function tableExists(schema: string, table: string): Promise<boolean> {
  const result = await db.query('SELECT to_regclass($1) IS NOT NULL AS found', [`"${schema}".${table}`]);
  return result.rows[0].found;
}

describe('applyMigrations', () => {
  test('applies pending migrations once, in directory-name order, into the service schema', async () => {
    // Written second-first: order must come from the names, not from the file system.
    const { schema, dir } = await fixture({
      [SECOND]: 'INSERT INTO widgets VALUES (1);\n',
      [FIRST]: WIDGETS_SQL,
    });

    expect(await apply(schema, dir)).toEqual({ applied: [FIRST, SECOND], alreadyApplied: [] });
    expect(await apply(schema, dir)).toEqual({ applied: [], alreadyApplied: [FIRST, SECOND] });

    expect((await db.query(`SELECT id FROM "${schema}".widgets`)).rows).toEqual([{ id: 1 }]);
    expect(await tableExists('public', 'widgets')).toBe(false);
    expect((await history(schema)).map((row) => row.migration_name)).toEqual([FIRST, SECOND]);
  });

  test('keeps _prisma_migrations in the target schema with Prisma’s columns and rows', async () => {
    const { schema, dir } = await fixture({ [FIRST]: WIDGETS_SQL });
    await apply(schema, dir);

    expect(await tableExists(schema, '_prisma_migrations')).toBe(true);
    expect(await tableExists('public', '_prisma_migrations')).toBe(false);
    const columns = await db.query(
      `SELECT column_name AS name, data_type AS type, character_maximum_length AS length,
              is_nullable AS nullable, column_default AS default
         FROM information_schema.columns WHERE table_schema = $1 AND table_name = '_prisma_migrations'
        ORDER BY ordinal_position`,
      [schema],
    );
    // Prisma's DDL (prisma-engines, PostgreSQL flavour, create_migrations_table).
    expect(columns.rows).toEqual([
      { name: 'id', type: 'character varying', length: 36, nullable: 'NO', default: null },
      { name: 'checksum', type: 'character varying', length: 64, nullable: 'NO', default: null },
      { name: 'finished_at', type: 'timestamp with time zone', length: null, nullable: 'YES', default: null },
      { name: 'migration_name', type: 'character varying', length: 255, nullable: 'NO', default: null },
      { name: 'logs', type: 'text', length: null, nullable: 'YES', default: null },
      {
        name: 'rolled_back_at',
        type: 'timestamp with time zone',
        length: null,
        nullable: 'YES',
        default: null,
      },
      {
        name: 'started_at',
        type: 'timestamp with time zone',
        length: null,
        nullable: 'NO',
        default: 'now()',
      },
      { name: 'applied_steps_count', type: 'integer', length: null, nullable: 'NO', default: '0' },
    ]);
    const primaryKey = await db.query(
      `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
        WHERE i.indrelid = $1::regclass AND i.indisprimary`,
      [`"${schema}"._prisma_migrations`],
    );
    expect(primaryKey.rows).toEqual([{ name: 'id' }]);

    const [row] = await history(schema);
    expect(row).toMatchObject({
      migration_name: FIRST,
      checksum: WIDGETS_CHECKSUM,
      logs: null,
      rolled_back_at: null,
      applied_steps_count: 1,
    });
    expect(row.id).toMatch(UUID_V4);
    expect(row.finished_at.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
  });

  test('recognises a history written by Prisma, with CRLF checksums and rolled-back rows', async () => {
    const { schema, dir } = await fixture({
      [FIRST]: WIDGETS_SQL,
      [SECOND]: 'INSERT INTO widgets VALUES (2);\n',
    });
    // What `prisma migrate deploy` leaves behind after applying FIRST from a Windows checkout (CRLF),
    // and after SECOND failed once and was marked rolled back (`prisma migrate resolve --rolled-back`).
    await db.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}";
      CREATE TABLE _prisma_migrations (
          id                      VARCHAR(36) PRIMARY KEY NOT NULL,
          checksum                VARCHAR(64) NOT NULL,
          finished_at             TIMESTAMPTZ,
          migration_name          VARCHAR(255) NOT NULL,
          logs                    TEXT,
          rolled_back_at          TIMESTAMPTZ,
          started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
          applied_steps_count     INTEGER NOT NULL DEFAULT 0
      );
      ${WIDGETS_SQL}
      INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, applied_steps_count)
        VALUES (gen_random_uuid(), encode(sha256(convert_to(replace('${WIDGETS_SQL}', E'\\n', E'\\r\\n'), 'UTF8')), 'hex'),
                now(), '${FIRST}', 1);
      INSERT INTO _prisma_migrations (id, checksum, migration_name, logs, rolled_back_at)
        VALUES (gen_random_uuid(), 'x', '${SECOND}', 'syntax error', now());
      RESET search_path;`);

    expect(await apply(schema, dir)).toEqual({ applied: [SECOND], alreadyApplied: [FIRST] });
    expect((await db.query(`SELECT id FROM "${schema}".widgets`)).rows).toEqual([{ id: 2 }]);
  });

  test('refuses to go on when an applied migration’s file changed', async () => {
    const { schema, dir } = await fixture({ [FIRST]: WIDGETS_SQL });
    await apply(schema, dir);
    await writeMigration(dir, FIRST, `-- edited\n${WIDGETS_SQL}`);
    await writeMigration(dir, THIRD, 'CREATE TABLE gadgets (id INTEGER);\n');

    const error = await failure(apply(schema, dir));
    expect(error.code).toBe('MIGRATION_MODIFIED');
    expect(error.migration).toBe(FIRST);
    expect(error.message).toContain(FIRST);
    expect(await tableExists(schema, 'gadgets')).toBe(false);
    expect((await history(schema)).map((row) => row.migration_name)).toEqual([FIRST]);
  });

  test('rolls a failing migration back whole, writes no row, and names the migration and the SQL error', async () => {
    const broken = 'CREATE TABLE gadgets (id INTEGER);\nINSERT INTO nowhere VALUES (1);\n';
    const { schema, dir } = await fixture({ [FIRST]: WIDGETS_SQL, [THIRD]: broken });

    const error = await failure(apply(schema, dir));
    expect(error.code).toBe('MIGRATION_FAILED');
    expect(error.migration).toBe(THIRD);
    expect(error.message).toContain(THIRD);
    expect(error.message).toContain('relation "nowhere" does not exist');
    expect(error.message).toContain('at line 2');
    expect(await tableExists(schema, 'gadgets')).toBe(false);
    expect((await history(schema)).map((row) => [row.migration_name, row.finished_at !== null])).toEqual([
      [FIRST, true],
    ]);

    await writeMigration(dir, THIRD, 'CREATE TABLE gadgets (id INTEGER);\n');
    expect(await apply(schema, dir)).toEqual({ applied: [THIRD], alreadyApplied: [FIRST] });
  });

  test('refuses to go on while a failed migration is recorded, as Prisma’s P3009', async () => {
    const { schema, dir } = await fixture({ [FIRST]: WIDGETS_SQL });
    await apply(schema, dir);
    // How Prisma records a script that failed half-way: started, never finished, with its error.
    await db.query(
      `INSERT INTO "${schema}"._prisma_migrations (id, checksum, migration_name, logs) VALUES (gen_random_uuid(), 'x', $1, $2)`,
      [SECOND, 'ERROR: boom'],
    );
    await writeMigration(dir, SECOND, 'INSERT INTO widgets VALUES (1);\n');

    const error = await failure(apply(schema, dir));
    expect(error.code).toBe('FAILED_MIGRATION_RECORDED');
    expect(error.message).toContain(SECOND);
    expect(error.message).toContain('ERROR: boom');
    expect((await db.query(`SELECT count(*)::int AS n FROM "${schema}".widgets`)).rows[0].n).toBe(0);

    await db.query(
      `UPDATE "${schema}"._prisma_migrations SET rolled_back_at = now() WHERE finished_at IS NULL`,
    );
    expect(await apply(schema, dir)).toEqual({ applied: [SECOND], alreadyApplied: [FIRST] });
  });

  test('concurrent appliers apply each migration exactly once', async () => {
    const { schema, dir } = await fixture({
      // The sleep keeps the first applier inside its run while the others queue on the lock.
      [FIRST]: 'CREATE TABLE applications (migration TEXT NOT NULL);\nSELECT pg_sleep(0.3);\n',
      [SECOND]: `INSERT INTO applications VALUES ('second');\n`,
      [THIRD]: `INSERT INTO applications VALUES ('third');\n`,
    });

    const results = await Promise.all([apply(schema, dir), apply(schema, dir), apply(schema, dir)]);

    expect(results.flatMap((result) => result.applied).sort()).toEqual([FIRST, SECOND, THIRD]);
    for (const result of results)
      expect([...result.applied, ...result.alreadyApplied].sort()).toEqual([FIRST, SECOND, THIRD]);
    expect((await db.query(`SELECT migration FROM "${schema}".applications ORDER BY 1`)).rows).toEqual([
      { migration: 'second' },
      { migration: 'third' },
    ]);
    expect((await history(schema)).map((row) => row.migration_name)).toEqual([FIRST, SECOND, THIRD]);
  });

  test('waits on the advisory lock prisma migrate takes (72707369) and gives up after lockTimeoutMs', async () => {
    const { schema, dir } = await fixture({ [FIRST]: WIDGETS_SQL });
    const prismaCli = new pg.Client({ connectionString: postgres.url });
    await prismaCli.connect();
    try {
      await prismaCli.query('SELECT pg_advisory_lock(72707369)');
      const error = await failure(apply(schema, dir, 300));
      expect(error.code).toBe('MIGRATION_LOCK_TIMEOUT');
      expect((await db.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount).toBe(0);

      const waiting = apply(schema, dir);
      await prismaCli.query('SELECT pg_advisory_unlock(72707369)');
      expect(await waiting).toEqual({ applied: [FIRST], alreadyApplied: [] });
    } finally {
      await prismaCli.end();
    }
  });

  test('refuses a schema that has tables but no history, as Prisma’s P3005', async () => {
    const { schema, dir } = await fixture({ [FIRST]: WIDGETS_SQL });
    await db.query(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".legacy (id INTEGER)`);

    const error = await failure(apply(schema, dir));
    expect(error.code).toBe('SCHEMA_NOT_EMPTY');
    expect(error.message).toContain('legacy');
    expect(await tableExists(schema, '_prisma_migrations')).toBe(false);
  });

  test('refuses a migration directory without migration.sql before touching the database', async () => {
    const { schema, dir } = await fixture({ [FIRST]: WIDGETS_SQL });
    await mkdir(join(dir, THIRD));

    const error = await failure(apply(schema, dir));
    expect(error.code).toBe('MIGRATIONS_DIR_INVALID');
    expect(error.migration).toBe(THIRD);
    expect((await db.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount).toBe(0);
  });
});
