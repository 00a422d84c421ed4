/**
 * The gateway's Prisma schema and its SQL migrations describe the same tables (kit's schema checks
 * against a real PostgreSQL), and the generated client works against them through kit's factory.
 */
import { describe, expect, test } from '@jest/globals';
import { createPrismaClient } from '@pag/kit';
import { eventually } from '@pag/kit/testing';
import { describeSchemaChecks } from '@pag/kit/testing/schema-checks';
import { gatewayDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';

const { databaseUrl } = describeSchemaChecks({
  service: 'gateway',
  database: gatewayDatabase,
  schemaFile: new URL('../prisma/schema.prisma', import.meta.url),
  breakingEdit: {
    from: '@map("window_start") @db.Date',
    to: '@map("window_start")',
    reported:
      'gateway.usage_counters.window_start: type date in the database, timestamp(3) without time zone in the model',
  },
  migrations: [
    '20261122220000_usage_counters',
    '20261123130000_usage_leases',
    '20261124002600_auth_failures',
  ],
});

describe('gateway client', () => {
  test('the generated client counts usage in the migrated table, in its schema, and disconnects cleanly', async () => {
    const db = createPrismaClient(PrismaClient, {
      databaseUrl: databaseUrl(),
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
      databaseUrl: databaseUrl(),
      schema: gatewayDatabase.schema,
    });
    try {
      // A backend leaves pg_stat_activity only once its process has exited, a moment after the
      // client's Terminate message: on a busy machine the count was seen at 1 right after
      // $disconnect. What must hold is that every connection goes, not at which instant.
      await eventually(
        async () => {
          const [open] = await observer.$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE application_name = 'pag-gateway' AND pid <> pg_backend_pid()`;
          expect(open?.n).toBe(0);
        },
        { what: "the disconnected client's backends have exited" },
      );
      // Raw SQL resolves names in the gateway's schema, as the client's models do.
      expect(await observer.$queryRaw`SELECT current_schema() AS schema`).toEqual([{ schema: 'gateway' }]);
    } finally {
      await observer.$disconnect();
    }
  });
});
