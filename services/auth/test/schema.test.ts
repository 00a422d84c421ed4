/**
 * The auth service's Prisma schema and its SQL migrations describe the same tables: the
 * migrations are applied to a real PostgreSQL, then every model is compared with its table.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { applyMigrations, findSchemaDrift } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { authDatabase } from '../src/database.ts';

let postgres: TestPostgres;
let schemaText: string;

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...authDatabase });
  schemaText = await readFile(new URL('../prisma/schema.prisma', import.meta.url), 'utf8');
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

describe('auth schema', () => {
  test('every model matches the table its migrations created', async () => {
    expect(await findSchemaDrift({ databaseUrl: postgres.url, schemaText })).toEqual([]);
  });

  test('a model that no longer matches its migration is reported', async () => {
    const edited = schemaText.replace(
      'consumedAt DateTime? @map("consumed_at")',
      'consumedAt DateTime  @map("consumed_at")',
    );
    expect(edited).not.toBe(schemaText);
    expect(await findSchemaDrift({ databaseUrl: postgres.url, schemaText: edited })).toEqual([
      expect.stringContaining('auth.oidc_payloads.consumed_at'),
    ]);
  });

  test('applying the migrations again changes nothing', async () => {
    const again = await applyMigrations({ databaseUrl: postgres.url, ...authDatabase });
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toEqual([
      '20261123000000_auth_init',
      '20261123100000_agents',
      '20261123120000_grant_lookup',
    ]);
  });
});
