/**
 * Leases against the real statement (gateway.lease_usage) on a real PostgreSQL: several
 * UsageLeases stand for several replicas sharing one agent's rows.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { applyMigrations, createLogger, createPrismaClient } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { gatewayDatabase } from '../database.ts';
import type { UsageLimits } from '../domain/usage-windows.ts';
import { usageWindows } from '../domain/usage-windows.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { LeaseRequest } from './usage-leases.ts';
import { UsageLeases } from './usage-leases.ts';
import { leaseUsage } from './usage-store.ts';

const logger = createLogger({ service: 'usage-leases-test', level: 'silent' });
const now = new Date();
const windows = usageWindows(now);
let postgres: TestPostgres;
let db: PrismaClient;

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
  db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: gatewayDatabase.schema });
});
afterAll(async () => {
  await db?.$disconnect();
  await postgres?.stop();
});

/** A replica's leases, recording every statement it sends. */
function replica(maxBlock = 100, spread = 4) {
  const sent: LeaseRequest[] = [];
  const leases = new UsageLeases(
    (request) => {
      sent.push(request);
      return leaseUsage(db, request);
    },
    { maxBlock, spread, logger },
  );
  return { leases, sent };
}

async function rows(clientId: string) {
  const found = await db.usageCounter.findMany({
    where: { accountId: 'acc', agentId: clientId },
    orderBy: { windowKind: 'asc' },
  });
  return found.map(({ windowKind, count, reserved }) => ({ windowKind, count, reserved }));
}

describe('leases on one PostgreSQL', () => {
  test('blocks are a fraction of what is free, capped, and shrink to single requests near the limit', async () => {
    const key = { accountId: 'acc', clientId: 'shrink' };
    const limits: UsageLimits = { daily: 100, monthly: null };
    const { leases, sent } = replica(10, 4);
    const served = [];
    for (let i = 0; i < 100; i += 1) served.push((await leases.take(key, windows, limits, now)).served);
    await leases.settle();
    expect(served.every(Boolean)).toBe(true);
    // first: 1 taken, then min(10, 99/4) = 10; near the end each statement takes one request only
    expect(sent[0]).toMatchObject({ take: 1, maxBlock: 10, spread: 4 });
    expect(sent.length).toBeLessThan(40);
    expect((await leases.take(key, windows, limits, now)).served).toBe(false);
    expect(await rows('shrink')).toEqual([
      { windowKind: 'day', count: 100, reserved: 0 },
      { windowKind: 'month', count: 100, reserved: 0 },
    ]);
  });

  test('far from the limit most requests are served without a statement', async () => {
    const key = { accountId: 'acc', clientId: 'far' };
    const { leases, sent } = replica(100, 16);
    for (let i = 0; i < 1000; i += 1)
      await leases.take(key, windows, { daily: 1_000_000, monthly: null }, now);
    await leases.close();
    expect(sent.length).toBeLessThanOrEqual(20);
    expect(await rows('far')).toEqual([
      { windowKind: 'day', count: 1000, reserved: 0 },
      { windowKind: 'month', count: 1000, reserved: 0 },
    ]);
  });

  test('three replicas, 600 concurrent requests, a monthly limit of 250: never more than 250, exactly 250 once idle blocks return', async () => {
    const key = { accountId: 'acc', clientId: 'shared' };
    const limits: UsageLimits = { daily: null, monthly: 250 };
    const replicas = [replica(20, 4), replica(20, 4), replica(20, 4)];
    const burst = (n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) => replicas[i % 3]?.leases.take(key, windows, limits, now)),
      );
    const first = await burst(600);
    const served = first.filter((d) => d?.served).length;
    expect(served).toBeLessThanOrEqual(250);
    expect(first.every((d) => d?.served || d?.remaining.month === 0)).toBe(true);
    // A replica whose own requests ran out may still hold a block: refusals meanwhile are not
    // final, and two ticks (settled, then idle) give it back.
    for (const { leases } of replicas) await leases.tick(windows);
    for (const { leases } of replicas) await leases.tick(windows);
    const second = await burst(300);
    expect(served + second.filter((d) => d?.served).length).toBe(250);
    for (const { leases } of replicas) await leases.close();
    expect(await rows('shared')).toEqual([
      { windowKind: 'day', count: 250, reserved: 0 },
      { windowKind: 'month', count: 250, reserved: 0 },
    ]);
  });

  test('a replica that stops without giving back strands at most its block; a graceful one returns it', async () => {
    const key = { accountId: 'acc', clientId: 'crash' };
    const limits: UsageLimits = { daily: 1000, monthly: null };
    const crashed = replica(50, 4);
    const graceful = replica(50, 4);
    await crashed.leases.take(key, windows, limits, now);
    await graceful.leases.take(key, windows, limits, now);
    expect(await rows('crash')).toEqual([
      { windowKind: 'day', count: 2, reserved: 100 },
      { windowKind: 'month', count: 2, reserved: 100 },
    ]);
    await graceful.leases.close();
    // The crashed replica's 50 units stay reserved until the day ends: served by nobody.
    expect((await rows('crash'))[0]).toEqual({ windowKind: 'day', count: 2, reserved: 50 });
  });

  test('an idle block is given back at the next tick; the served part is settled as used', async () => {
    const key = { accountId: 'acc', clientId: 'idle' };
    const limits: UsageLimits = { daily: 400, monthly: null };
    const { leases } = replica(50, 4);
    await leases.take(key, windows, limits, now);
    await leases.take(key, windows, limits, now);
    await leases.tick(windows); // used since the last tick: settled only
    expect((await rows('idle'))[0]).toEqual({ windowKind: 'day', count: 2, reserved: 49 });
    await leases.tick(windows); // idle: given back
    expect((await rows('idle'))[0]).toEqual({ windowKind: 'day', count: 2, reserved: 0 });
  });

  test("at a new window the old window's block is given back and a new one taken", async () => {
    const key = { accountId: 'acc', clientId: 'midnight' };
    const limits: UsageLimits = { daily: 400, monthly: null };
    const before = usageWindows(new Date('2026-11-30T23:59:59.000Z'));
    const after = usageWindows(new Date('2026-12-01T00:00:01.000Z'));
    const { leases } = replica(50, 4);
    await leases.take(key, before, limits, now);
    await leases.take(key, after, limits, now);
    await leases.close();
    const day = await db.usageCounter.findMany({
      where: { accountId: 'acc', agentId: 'midnight', windowKind: 'day' },
      orderBy: { windowStart: 'asc' },
    });
    expect(day.map(({ count, reserved }) => ({ count, reserved }))).toEqual([
      { count: 1, reserved: 0 },
      { count: 1, reserved: 0 },
    ]);
  });
});
