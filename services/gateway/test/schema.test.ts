/**
 * The gateway's Prisma schema and its SQL migrations describe the same tables. The migrations are
 * applied to a real PostgreSQL, then every model is compared with its table (kit's schema-drift
 * check), and the generated client works against them through kit's factory.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { applyMigrations, createPrismaClient, findSchemaDrift } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { gatewayDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

let postgres: TestPostgres;
let schemaText: string;

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
  schemaText = await readFile(new URL('../prisma/schema.prisma', import.meta.url), 'utf8');
});

afterAll(async () => {
  await postgres?.stop();
});

describe('gateway schema', () => {
  test('every model matches the table its migrations created', async () => {
    expect(await findSchemaDrift({ databaseUrl: postgres.url, schemaText })).toEqual([]);
  });

  test('a model that no longer matches its migration is reported', async () => {
    const edited = schemaText.replace('@map("window_start") @db.Date', '@map("window_start")');
    expect(edited).not.toBe(schemaText);
    expect(await findSchemaDrift({ databaseUrl: postgres.url, schemaText: edited })).toEqual([
      'gateway.usage_counters.window_start: type date in the database, timestamp(3) without time zone in the model',
    ]);
  });

  test('the generated client counts usage in the migrated table, in its schema, and disconnects cleanly', async () => {
    const db = createPrismaClient(PrismaClient, {
      databaseUrl: postgres.url,
      schema: gatewayDatabase.schema,
    });
    const key = {
      accountId: 'acc-1',
      agentId: 'agent-1',
      windowKind: 'day',
      windowStart: new Date('2026-11-22'),
    } as const;
    const countOne = () =>
      db.usageCounter.upsert({
        where: { accountId_agentId_windowKind_windowStart: key },
        create: { ...key, count: 1 },
        update: { count: { increment: 1 } },
      });
    try {
      await countOne();
      const row = await countOne();
      expect(row).toMatchObject({ ...key, count: 2 });
      expect(row.updatedAt).toBeInstanceOf(Date);
    } finally {
      await db.$disconnect();
    }

    const observer = createPrismaClient(PrismaClient, {
      databaseUrl: postgres.url,
      schema: gatewayDatabase.schema,
    });
    try {
      const [open] = await observer.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE application_name = 'pag-gateway' AND pid <> pg_backend_pid()`;
      expect(open?.n).toBe(0);
      // Raw SQL resolves names in the gateway's schema, as the client's models do.
      expect(await observer.$queryRaw`SELECT current_schema() AS schema`).toEqual([{ schema: 'gateway' }]);
    } finally {
      await observer.$disconnect();
    }
  });
});
