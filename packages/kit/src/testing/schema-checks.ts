/**
 * The checks every service's schema test makes, so that a Prisma schema and its SQL migrations
 * cannot drift apart: the migrations are applied to a real PostgreSQL, every model is compared
 * with its table (findSchemaDrift), an edit that breaks one model is reported, and applying the
 * migrations again changes nothing. Call it at the top level of a test file. Imported on its own
 * (`@pag/kit/testing/schema-checks`): it needs jest, which the rest of kit/testing (also used by
 * the benchmarks) must not.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { applyMigrations } from '../db/migrations.ts';
import { findSchemaDrift } from '../db/schema-drift.ts';
import type { TestPostgres } from './postgres.ts';
import { startTestPostgres } from './postgres.ts';

export interface SchemaChecksOptions {
  /** The service, for the test names. */
  service: string;
  database: { schema: string; migrationsDir: string };
  /** The service's prisma/schema.prisma. */
  schemaFile: URL;
  /** A text of the schema, what to put instead, and the one line the drift report then holds. */
  breakingEdit: { from: string; to: string; reported: string };
  /** Every migration's directory name, in order. */
  migrations: string[];
}

export function describeSchemaChecks(options: SchemaChecksOptions): { databaseUrl: () => string } {
  const { database } = options;
  let postgres: TestPostgres | undefined;
  let schemaText = '';
  const databaseUrl = () => {
    if (postgres === undefined) throw new Error('the schema checks have not started PostgreSQL yet');
    return postgres.url;
  };

  beforeAll(async () => {
    postgres = await startTestPostgres();
    await applyMigrations({ databaseUrl: postgres.url, ...database });
    schemaText = await readFile(options.schemaFile, 'utf8');
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  describe(`${options.service} schema`, () => {
    test('every model matches the table its migrations created', async () => {
      expect(await findSchemaDrift({ databaseUrl: databaseUrl(), schemaText })).toEqual([]);
    });

    test('a model that no longer matches its migration is reported', async () => {
      const { from, to, reported } = options.breakingEdit;
      const edited = schemaText.replace(from, to);
      expect(edited).not.toBe(schemaText);
      expect(await findSchemaDrift({ databaseUrl: databaseUrl(), schemaText: edited })).toEqual([reported]);
    });

    test('applying the migrations again changes nothing', async () => {
      const again = await applyMigrations({ databaseUrl: databaseUrl(), ...database });
      expect(again.applied).toEqual([]);
      expect(again.alreadyApplied).toEqual(options.migrations);
    });
  });
  return { databaseUrl };
}
