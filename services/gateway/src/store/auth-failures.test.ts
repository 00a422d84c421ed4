/**
 * The rejected-token budget's store on a real PostgreSQL, two instances standing for two replicas:
 * they count in one row (together exactly the budget), a block one counted reaches the other with
 * its next refresh, IPv6 addresses of one /64 share a budget, and the purge deletes the rows of
 * ended windows only.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { applyMigrations, createLogger, createPrismaClient, sqlPoolOf } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { gatewayDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import type { SqlStatements } from './auth-failures.ts';
import { AuthFailureStore } from './auth-failures.ts';

let postgres: TestPostgres;
let db: PrismaClient;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const stores: AuthFailureStore[] = [];

function replica(
  clock: () => Date = now,
  sql?: SqlStatements,
  statementIntervalMs?: number,
): AuthFailureStore {
  const store = new AuthFailureStore(db, {
    ...(sql && { sql }),
    ...(statementIntervalMs !== undefined && { statementIntervalMs }),
    policy: { limit: 3, windowSeconds: 60 },
    // Never by the timer during a test: each test refreshes when it means to.
    refreshMs: 3_600_000,
    now: clock,
    logger: createLogger({ service: 'auth-failures-test', level: 'silent' }),
  });
  stores.push(store);
  return store;
}

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
  db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: gatewayDatabase.schema });
});
afterAll(async () => {
  for (const store of stores) await store.close();
  await db?.$disconnect();
  await postgres?.stop();
});

test('two replicas counting 20 failures at once: exactly 3 within the budget', async () => {
  const [a, b] = [replica(), replica()];
  const started = Date.now();
  const waits = await Promise.all(
    Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).recordFailure('198.51.100.1')),
  );
  // The window ends 60 s after the first failure; on a loaded machine the last answers come
  // seconds later, and their wait is that much shorter (it was 58 s once in a busy run).
  const elapsed = Math.ceil((Date.now() - started) / 1000);
  expect(waits.filter((wait) => wait === 0)).toHaveLength(3);
  expect(waits.filter((wait) => wait >= 59 - elapsed && wait <= 60)).toHaveLength(17);
  const row = await db.authFailure.findUnique({ where: { address: '198.51.100.1' } });
  expect(row?.failures).toBe(20);
});

test('a flood on one replica costs a statement per round trip, and each failure still gets its own count', async () => {
  let statements = 0;
  // The same pool, counting the statements the store sends.
  const pool = sqlPoolOf(db);
  const store = replica(now, {
    query: (statement) => {
      statements += 1;
      return pool.query(statement);
    },
  });
  const waits = await Promise.all(Array.from({ length: 100 }, () => store.recordFailure('198.51.100.9')));
  expect(waits.filter((wait) => wait === 0)).toHaveLength(3);
  expect(waits.slice(0, 3)).toEqual([0, 0, 0]);
  expect(statements).toBeLessThanOrEqual(2);
  expect(await db.authFailure.findUnique({ where: { address: '198.51.100.9' } })).toMatchObject({
    failures: 100,
  });
});

/** The pool under the test's client, counting the statements sent through it. */
function countingPool(): { sql: SqlStatements; statements: () => number } {
  let statements = 0;
  const pool = sqlPoolOf(db);
  return {
    sql: {
      query: (statement) => {
        statements += 1;
        return pool.query(statement);
      },
    },
    statements: () => statements,
  };
}

test('failures trickling in from two replicas, counted in batches of an interval: still exactly 3 within the budget', async () => {
  const [counted, other] = [countingPool(), countingPool()];
  const interval = 20;
  const [a, b] = [replica(now, counted.sql, interval), replica(now, other.sql, interval)];
  const started = performance.now();
  const waits: Promise<number>[] = [];
  // 40 failures of one address, one every millisecond or so, alternately at each replica: each
  // replica's failures of one interval go in one statement, the budget's edge falls inside a batch.
  for (let i = 0; i < 40; i++) {
    waits.push((i % 2 === 0 ? a : b).recordFailure('198.51.100.11'));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const answered = await Promise.all(waits);
  const elapsed = performance.now() - started;
  expect(answered.filter((wait) => wait === 0)).toHaveLength(3);
  // Which replica's batch commits first is a race; within each one, no 401 after its first 429.
  for (const parity of [0, 1]) {
    const own = answered.filter((_, i) => i % 2 === parity);
    expect(own.slice(own.findIndex((wait) => wait > 0)).every((wait) => wait > 0)).toBe(true);
  }
  expect(await db.authFailure.findUnique({ where: { address: '198.51.100.11' } })).toMatchObject({
    failures: 40,
  });
  // One statement per replica per interval at most (the first at once), however fast they came.
  for (const pool of [counted, other]) {
    expect(pool.statements()).toBeLessThanOrEqual(Math.ceil(elapsed / interval) + 1);
    expect(pool.statements()).toBeLessThan(20);
  }
});

test('an isolated failure is counted at once, not after the interval', async () => {
  const store = replica(now, undefined, 10_000);
  const started = performance.now();
  expect(await store.recordFailure('198.51.100.12')).toBe(0);
  expect(performance.now() - started).toBeLessThan(5_000);
});

test('a statement that fails rejects its failures (the caller answers 503); the next ones are counted', async () => {
  let broken = true;
  const pool = sqlPoolOf(db);
  const store = replica(now, {
    query: (statement) => (broken ? Promise.reject(new Error('connection lost')) : pool.query(statement)),
  });
  await expect(store.recordFailure('198.51.100.10')).rejects.toThrow('connection lost');
  broken = false;
  expect(await store.recordFailure('198.51.100.10')).toBe(0);
  expect(await db.authFailure.findUnique({ where: { address: '198.51.100.10' } })).toMatchObject({
    failures: 1,
  });
});

test('a block one replica counted reaches the other with its next refresh, not before (no I/O per check)', async () => {
  const [a, b] = [replica(), replica()];
  for (let i = 0; i < 3; i++) expect(await a.recordFailure('198.51.100.2')).toBe(0);
  expect(a.retryAfterSeconds('198.51.100.2')).toBe(60);
  expect(b.retryAfterSeconds('198.51.100.2')).toBe(0);
  await b.refresh();
  expect(b.retryAfterSeconds('198.51.100.2')).toBe(60);
  expect(b.retryAfterSeconds('198.51.100.3')).toBe(0);
});

test('IPv6 addresses of one /64 share a budget; the next /64 has its own', async () => {
  const store = replica();
  await store.recordFailure('2001:db8:5:6::1');
  await store.recordFailure('2001:db8:5:6::2');
  await store.recordFailure('2001:db8:5:6:aaaa:bbbb:cccc:dddd');
  expect(store.retryAfterSeconds('2001:db8:5:6::99')).toBe(60);
  expect(store.retryAfterSeconds('2001:db8:5:7::1')).toBe(0);
});

test('the window ends 60 s after its first failure; the purge deletes only rows of ended windows', async () => {
  const store = replica();
  await store.recordFailure('198.51.100.4');
  offsetMs += 30_000;
  for (let i = 0; i < 2; i++) await store.recordFailure('198.51.100.4');
  await store.recordFailure('198.51.100.5');
  expect(store.retryAfterSeconds('198.51.100.4')).toBe(30);
  offsetMs += 30_000;
  expect(store.retryAfterSeconds('198.51.100.4')).toBe(0);

  const before = await db.authFailure.count();
  // Every row but 198.51.100.5's (30 s old) began 60 s ago or more.
  expect(await store.purgeEnded()).toBe(before - 1);
  expect((await db.authFailure.findMany()).map((row) => row.address)).toEqual(['198.51.100.5']);
  expect(await store.recordFailure('198.51.100.4')).toBe(0);
  expect(await db.authFailure.findUnique({ where: { address: '198.51.100.4' } })).toMatchObject({
    failures: 1,
  });
});

test('a window another replica started by a clock running ahead never makes a wait longer than the window', async () => {
  const ahead = replica(() => new Date(now().getTime() + 5_000));
  const behind = replica();
  // The first failure is counted by the replica whose clock is 5 s ahead: the window starts then.
  expect(await ahead.recordFailure('198.51.100.9')).toBe(0);
  expect(await behind.recordFailure('198.51.100.9')).toBe(0);
  expect(await behind.recordFailure('198.51.100.9')).toBe(0);
  // Past the budget on the replica behind: its own clock would say 65 s.
  expect(await behind.recordFailure('198.51.100.9')).toBe(60);
  expect(behind.retryAfterSeconds('198.51.100.9')).toBe(60);
  await behind.refresh();
  expect(behind.retryAfterSeconds('198.51.100.9')).toBe(60);
});
