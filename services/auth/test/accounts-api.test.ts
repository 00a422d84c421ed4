/**
 * auth.account.get: other services learn an owner's email, plan and creation time over the bus,
 * never the password hash; an unknown or malformed account id is a clear error.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { OwnerAccount } from '@pag/contracts';
import { AppError, AuthSubjects } from '@pag/contracts';
import { byOperator } from '../src/events/audit-decisions.ts';
import { AccountStore } from '../src/store/account-store.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
beforeAll(async () => {
  t = await startTestAuth();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const ask = (body: unknown) =>
  t.bus.request<OwnerAccount>(AuthSubjects.accountGet, body, { timeoutMs: 10_000 });

test('answers an account with its public facts only', async () => {
  const account = await new AccountStore(t.db).create(
    {
      email: 'Account-Api@Example.test',
      password: 'correct horse battery staple',
      plan: 'pro',
    },
    byOperator(),
  );
  const answer = await ask({ accountId: account.id });
  expect(answer).toEqual({
    accountId: account.id,
    email: 'account-api@example.test',
    plan: 'pro',
    createdAt: account.createdAt.toISOString(),
  });
  expect(JSON.stringify(answer)).not.toMatch(/argon|hash|password/i);
});

test.each([
  ['an unknown account', 'NOT_FOUND', { accountId: '00000000-0000-4000-8000-000000000000' }],
  ['a malformed id', 'INVALID_REQUEST', { accountId: 'not-a-uuid' }],
  ['no body', 'INVALID_REQUEST', null],
])('%s is %s', async (_name, code, body) => {
  const failure = await ask(body).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(AppError);
  expect((failure as AppError).code).toBe(code);
});
