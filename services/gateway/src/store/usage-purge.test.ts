/**
 * Old daily counts are purged on a real PostgreSQL: days before the retention go, recent days and
 * every monthly row stay, so limits, the dashboard and lastUsedAt read what they read before.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { applyMigrations, createLogger, createPrismaClient } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { gatewayDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { DAILY_RETENTION_DAYS, UsageStore } from './usage-store.ts';

let postgres: TestPostgres;
let db: PrismaClient;
let store: UsageStore;

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
  db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: gatewayDatabase.schema });
  store = new UsageStore(db, {
    flushMs: 60_000,
    logger: createLogger({ service: 'purge-test', level: 'silent' }),
  });
});
afterAll(async () => {
  await store?.close();
  await db?.$disconnect();
  await postgres?.stop();
});

const daysAgo = (days: number) => {
  const today = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
  return new Date(today.getTime() - days * 86_400_000);
};

test(`daily counts older than ${DAILY_RETENTION_DAYS} days go; recent days and months stay`, async () => {
  const row = (windowKind: 'day' | 'month', windowStart: Date) => ({
    accountId: 'acc-purge',
    agentId: 'agent-1',
    windowKind,
    windowStart,
    count: 3,
  });
  await db.usageCounter.createMany({
    data: [
      row('day', daysAgo(DAILY_RETENTION_DAYS + 1)),
      row('day', daysAgo(400)),
      row('day', daysAgo(DAILY_RETENTION_DAYS)),
      row('day', daysAgo(0)),
      row('month', daysAgo(400)),
    ],
  });
  expect(await store.purgeOldDays()).toBe(2);
  const left = await db.usageCounter.findMany({
    where: { accountId: 'acc-purge' },
    orderBy: { windowStart: 'asc' },
  });
  expect(left.map((r) => [r.windowKind, r.windowStart.toISOString().slice(0, 10)])).toEqual([
    ['month', daysAgo(400).toISOString().slice(0, 10)],
    ['day', daysAgo(DAILY_RETENTION_DAYS).toISOString().slice(0, 10)],
    ['day', daysAgo(0).toISOString().slice(0, 10)],
  ]);
  expect(await store.purgeOldDays()).toBe(0);
});
