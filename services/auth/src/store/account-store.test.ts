/**
 * AccountStore against a real PostgreSQL: what is stored, what sign-up refuses, and what
 * sign-in reveals (nothing about which emails exist).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { hash } from '@node-rs/argon2';
import { AppError } from '@pag/contracts';
import { byOperator } from '../events/audit-decisions.ts';
import { AccountStore } from './account-store.ts';
import type { AccountsTestDatabase } from './test-database.ts';
import { startAccountsTestDatabase } from './test-database.ts';

let database: AccountsTestDatabase;
let accounts: AccountStore;

beforeAll(async () => {
  database = await startAccountsTestDatabase();
  accounts = new AccountStore(database.db);
});

afterAll(async () => {
  await database?.close();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('AccountStore.create', () => {
  test('stores the email lowercased and only an argon2id hash with the documented parameters', async () => {
    const account = await accounts.create(
      { email: '  Ada@Example.COM ', password: 'correct horse battery' },
      byOperator(),
    );
    expect(account).toMatchObject({ email: 'ada@example.com', plan: 'free' });
    expect(account.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(account).not.toHaveProperty('passwordHash');

    const row = await database.db.account.findUniqueOrThrow({ where: { id: account.id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.passwordHash).not.toContain('correct horse');
  });

  test('keeps the plan it is given', async () => {
    const account = await accounts.create(
      {
        email: 'pro@example.com',
        password: 'a long passphrase',
        plan: 'pro',
      },
      byOperator(),
    );
    expect((await accounts.findById(account.id))?.plan).toBe('pro');
  });

  test('refuses a taken email, however it is capitalised, with CONFLICT', async () => {
    await accounts.create({ email: 'taken@example.com', password: 'first password!' }, byOperator());
    expect(
      await codeOf(
        accounts.create({ email: 'TAKEN@example.com', password: 'second password' }, byOperator()),
      ),
    ).toBe('CONFLICT');
  });

  test('refuses short passwords, invalid emails and unknown plans with INVALID_REQUEST', async () => {
    expect(
      await codeOf(accounts.create({ email: 'short@example.com', password: 'elevenchars' }, byOperator())),
    ).toBe('INVALID_REQUEST');
    expect(
      await codeOf(
        accounts.create({ email: 'not-an-email', password: 'long enough password' }, byOperator()),
      ),
    ).toBe('INVALID_REQUEST');
    expect(
      await codeOf(
        accounts.create(
          // biome-ignore lint/suspicious/noExplicitAny: a caller outside TypeScript may pass any string.
          { email: 'plan@example.com', password: 'long enough password', plan: 'gold' as any },
          byOperator(),
        ),
      ),
    ).toBe('INVALID_REQUEST');
    expect(await accounts.findByEmail('short@example.com')).toBeNull();
  });
});

describe('AccountStore.verify and findById', () => {
  test('returns the account for the right password, from any capitalisation of the email', async () => {
    const created = await accounts.create(
      { email: 'grace@example.com', password: 'hopper hopper 1906' },
      byOperator(),
    );
    expect(await accounts.verify('Grace@Example.com', 'hopper hopper 1906')).toEqual(created);
    expect(await accounts.findById(created.id)).toEqual(created);
  });

  test('returns null for a wrong password, an unknown email and a non-uuid id', async () => {
    await accounts.create({ email: 'linus@example.com', password: 'penguins all the way' }, byOperator());
    expect(await accounts.verify('linus@example.com', 'penguins all the wa')).toBeNull();
    expect(await accounts.verify('nobody@example.com', 'penguins all the way')).toBeNull();
    expect(await accounts.findById('not-a-uuid')).toBeNull();
    expect(await accounts.findById('00000000-0000-4000-8000-000000000000')).toBeNull();
  });

  test('an unknown email costs a hash verification, like a known one (no timing oracle)', async () => {
    await accounts.create({ email: 'timing@example.com', password: 'timing password 1' }, byOperator());
    // A call's cost is the CPU time this process spends on it (argon2 runs on libuv's threads,
    // which process.cpuUsage counts): a loaded machine stretches a call's wall time while it waits
    // for a core, but not the work of a hash verification. Argon2 is memory-hard, though, so a
    // machine busy elsewhere inflates its CPU time too (cache misses; seen: 151 ms against 58): the
    // known and the unknown email take turns, so both see the same moments, and each keeps the
    // least of seven calls, so that a garbage collection during one does not count.
    const work = async (emails: string[]): Promise<number[]> => {
      const least = emails.map(() => Number.POSITIVE_INFINITY);
      for (let i = 0; i < 7; i++) {
        for (const [index, email] of emails.entries()) {
          const before = process.cpuUsage();
          await accounts.verify(email, 'wrong password here');
          const { user, system } = process.cpuUsage(before);
          least[index] = Math.min(least[index] ?? Number.POSITIVE_INFINITY, user + system);
        }
      }
      return least;
    };
    await work(['warmup@example.com']);
    const [known = 0, unknown = 0] = await work(['timing@example.com', 'unknown-timing@example.com']);
    // Without the dummy verification an unknown email costs ~1 ms of CPU against ~30 ms.
    expect(unknown).toBeGreaterThan(known * 0.5);
  });

  test('a hash made with weaker parameters is upgraded on the next correct sign-in', async () => {
    const weak = await hash('upgrade me please', { memoryCost: 4096, timeCost: 1, parallelism: 1 });
    const id = '6f1d2c8e-7d1a-4b1e-9a51-3c1b9e0d1a2b';
    await database.db.account.create({ data: { id, email: 'weak@example.com', passwordHash: weak } });
    expect((await accounts.verify('weak@example.com', 'upgrade me please'))?.id).toBe(id);
    const row = await database.db.account.findUniqueOrThrow({ where: { id } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await accounts.verify('weak@example.com', 'upgrade me please'))?.id).toBe(id);
  });
});
