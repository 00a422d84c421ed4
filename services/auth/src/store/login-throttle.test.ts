/**
 * Login throttling against a real PostgreSQL, with a clock the test moves (no sleeping):
 * delays grow per email and per address, two store instances (two replicas) share the counters,
 * and a locked subject is answered at once with the wait.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createPrismaClient } from '@pag/kit';
import { byOperator } from '../events/audit-decisions.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { AccountStore } from './account-store.ts';
import { LoginThrottle } from './login-throttle.ts';
import type { AccountsTestDatabase } from './test-database.ts';
import { startAccountsTestDatabase } from './test-database.ts';

let database: AccountsTestDatabase;
let replica: PrismaClient;
let clock = new Date('2026-11-22T12:00:00Z');
const now = (): Date => clock;
const advance = (seconds: number): void => {
  clock = new Date(clock.getTime() + seconds * 1000);
};
const policy = {
  freeFailuresPerEmail: 3,
  freeFailuresPerAddress: 6,
  baseDelaySeconds: 2,
  maxDelaySeconds: 16,
};

beforeAll(async () => {
  database = await startAccountsTestDatabase();
  replica = createPrismaClient(PrismaClient, { databaseUrl: database.postgres.url, schema: 'auth' });
});

afterAll(async () => {
  await replica?.$disconnect();
  await database?.close();
});

describe('signIn throttling', () => {
  test('after the free failures each failure doubles the wait, up to the cap; the right password then works', async () => {
    const accounts = new AccountStore(database.db, { throttle: policy, now });
    await accounts.create({ email: 'owner@example.com', password: 'the right password' }, byOperator());
    // No address: this test follows the email's counter alone (addresses have their own test).
    const address = undefined;
    for (let i = 0; i < 3; i++) {
      expect(await accounts.signIn('owner@example.com', 'wrong password!', address, byOperator())).toEqual({
        outcome: 'rejected',
      });
    }
    const waits: number[] = [];
    for (let i = 0; i < 5; i++) {
      expect(
        (await accounts.signIn('owner@example.com', 'wrong password!', address, byOperator())).outcome,
      ).toBe('rejected');
      const locked = await accounts.signIn('OWNER@example.com', 'the right password', address, byOperator());
      if (locked.outcome !== 'throttled') throw new Error(`expected throttled, got ${locked.outcome}`);
      waits.push(locked.retryAfterSeconds);
      advance(locked.retryAfterSeconds);
    }
    expect(waits).toEqual([2, 4, 8, 16, 16]);

    const signedIn = await accounts.signIn('owner@example.com', 'the right password', address, byOperator());
    expect(signedIn.outcome).toBe('signed-in');
    // The email's counter is forgiven: the next failure is a free one again.
    expect(
      (await accounts.signIn('owner@example.com', 'wrong password!', address, byOperator())).outcome,
    ).toBe('rejected');
    expect(
      (await accounts.signIn('owner@example.com', 'the right password', address, byOperator())).outcome,
    ).toBe('signed-in');
  });

  test('unknown emails are throttled exactly like known ones', async () => {
    const accounts = new AccountStore(database.db, { throttle: policy, now });
    for (let i = 0; i < 4; i++)
      await accounts.signIn('ghost@example.com', 'any password at all', undefined, byOperator());
    expect(
      await accounts.signIn('ghost@example.com', 'any password at all', undefined, byOperator()),
    ).toEqual({
      outcome: 'throttled',
      retryAfterSeconds: 2,
    });
  });

  test('one address guessing many emails is slowed down, and signing in to its own account does not reset it', async () => {
    const accounts = new AccountStore(database.db, { throttle: policy, now });
    await accounts.create({ email: 'guesser@example.com', password: 'guesser own password' }, byOperator());
    const address = '203.0.113.9';
    for (let i = 0; i < 6; i++) {
      expect(
        (await accounts.signIn(`victim${i}@example.com`, 'guess guess guess', address, byOperator())).outcome,
      ).toBe('rejected');
      if (i === 4) {
        const own = await accounts.signIn(
          'guesser@example.com',
          'guesser own password',
          address,
          byOperator(),
        );
        expect(own.outcome).toBe('signed-in');
      }
    }
    expect(
      (await accounts.signIn('victim9@example.com', 'guess guess guess', address, byOperator())).outcome,
    ).toBe('rejected');
    expect(
      await accounts.signIn('fresh@example.com', 'guess guess guess', address, byOperator()),
    ).toMatchObject({
      outcome: 'throttled',
    });
    // Another address is not affected.
    expect(
      (await accounts.signIn('fresh@example.com', 'guess guess guess', '203.0.113.10', byOperator())).outcome,
    ).toBe('rejected');
  });

  test('two replicas share the counters, and concurrent failures all count', async () => {
    const first = new LoginThrottle(database.db, { policy, now });
    const second = new LoginThrottle(replica, { policy, now });
    const subject = { email: 'shared@example.com', address: undefined };
    await Promise.all(Array.from({ length: 4 }, (_, i) => (i % 2 ? first : second).recordFailure(subject)));
    expect(await second.retryAfterSeconds(subject)).toBe(2);
    expect(await first.retryAfterSeconds(subject)).toBe(2);
    // Keys are hashes: the email typed is not stored.
    const key = createHash('sha256').update('email:shared@example.com').digest('hex');
    const rows = await database.db.$queryRaw<{ failures: number }[]>`
      SELECT failures FROM "auth"."login_attempts" WHERE key_hash = ${key}`;
    expect(rows).toEqual([{ failures: 4 }]);
    const plain = await database.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM "auth"."login_attempts" WHERE key_hash LIKE '%@%'`;
    expect(plain).toEqual([{ n: 0 }]);
  });

  test('failures are forgotten after the window, and purgeExpired removes only forgotten, unlocked rows', async () => {
    const throttle = new LoginThrottle(database.db, { policy: { ...policy, forgetAfterSeconds: 60 }, now });
    const old = { email: 'old@example.com', address: undefined };
    const recent = { email: 'recent@example.com', address: undefined };
    for (let i = 0; i < 3; i++) await throttle.recordFailure(old);
    advance(61);
    expect(await throttle.recordFailure(old)).toBe(0);
    for (let i = 0; i < 4; i++) await throttle.recordFailure(recent);
    advance(61);
    const purged = await throttle.purgeExpired();
    expect(purged).toBeGreaterThanOrEqual(2);
    const left = await database.db.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM "auth"."login_attempts" WHERE last_failure_at >= ${clock}`;
    expect(left[0]?.n).toBe(0);
    expect(await throttle.recordFailure(recent)).toBe(0);
  });
});
