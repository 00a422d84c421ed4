/**
 * brain.identity.get: the owner's identity, seeded once from the auth service (auth.account.get)
 * on a fresh account, and never invented when auth cannot say.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Identity } from '@pag/contracts';
import { BrainSubjects, Identity as IdentitySchema } from '@pag/contracts';
import type { TestBrain } from './support/start-test-brain.ts';
import { startTestBrain } from './support/start-test-brain.ts';

let t: TestBrain;
beforeAll(async () => {
  t = await startTestBrain();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const identity = (accountId: string | undefined) => t.ask<Identity>(BrainSubjects.identityGet, { accountId });
const profiles = (accountId: string) => t.db.identityProfile.count({ where: { accountId } });

describe('brain.identity.get', () => {
  test('a fresh account is seeded from its auth account once; later reads do not ask again', async () => {
    const accountId = t.auth.addAccount('Owner.Name@example.com');
    const first = await identity(accountId);
    expect(IdentitySchema.parse(first)).toEqual(first);
    expect(first).toEqual({
      name: 'Owner.Name',
      email: 'Owner.Name@example.com',
      timezone: null,
      locale: null,
      summary: null,
    });
    expect(await identity(accountId)).toEqual(first);
    expect(t.auth.asked.filter((id) => id === accountId)).toHaveLength(1);
  });

  test('a stored profile is answered as stored, without asking auth', async () => {
    const accountId = t.auth.addAccount('stored@example.com');
    const stored = {
      name: 'Alice',
      email: null,
      timezone: 'Europe/Berlin',
      locale: 'de-DE',
      summary: 'Engineer.',
    };
    await t.db.identityProfile.create({ data: { accountId, ...stored } });
    expect(await identity(accountId)).toEqual(stored);
    expect(t.auth.asked).not.toContain(accountId);
  });

  test('concurrent first reads, on two replicas, seed exactly one row and all see it', async () => {
    await t.startReplica();
    const accountId = t.auth.addAccount('race@example.com');
    t.auth.hold();
    // NATS hands each request of a queue group to a member at random: with 40 reads, the chance
    // that one replica gets them all (and the other is never asked) is 2^-39, where 12 left 1 in 2,048.
    const reads = Array.from({ length: 40 }, () => identity(accountId));
    // Every read is waiting for auth before any is answered: each replica asked at most once.
    await t.auth.untilAsked(accountId, 2);
    t.auth.release();
    const answers = await Promise.all(reads);
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]?.email).toBe('race@example.com');
    expect(await profiles(accountId)).toBe(1);
    expect(t.auth.asked.filter((id) => id === accountId)).toHaveLength(2);
  });

  test("account B's identity is B's, whatever A stored", async () => {
    const a = t.auth.addAccount('id.a@example.com');
    const b = t.auth.addAccount('id.b@example.com');
    await t.db.identityProfile.create({ data: { accountId: a, name: 'A', summary: 'A private summary' } });
    expect(await identity(b)).toMatchObject({ name: 'id.b', email: 'id.b@example.com', summary: null });
    expect(await identity(a)).toMatchObject({ name: 'A', summary: 'A private summary' });
  });

  test('auth silent past the timeout: UPSTREAM_TIMEOUT, nothing stored', async () => {
    const accountId = t.auth.addAccount('slow@example.com');
    t.auth.hold();
    try {
      await expect(identity(accountId)).rejects.toMatchObject({
        code: 'UPSTREAM_TIMEOUT',
        message: expect.stringContaining('auth service'),
      });
    } finally {
      t.auth.release();
    }
    expect(await profiles(accountId)).toBe(0);
  });

  test('a reply that breaks OwnerAccount or names another account: UPSTREAM_ERROR, nothing stored', async () => {
    const accountId = t.auth.addAccount('broken@example.com');
    const other = t.auth.addAccount('other@example.com');
    try {
      t.auth.replyOverride = () => ({ accountId, email: 42 });
      await expect(identity(accountId)).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
      t.auth.replyOverride = () => t.auth.accounts.get(other);
      await expect(identity(accountId)).rejects.toMatchObject({ code: 'UPSTREAM_ERROR' });
    } finally {
      t.auth.replyOverride = undefined;
    }
    expect(await profiles(accountId)).toBe(0);
  });

  test("auth's own refusal (an unknown account) is passed on", async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    await expect(identity(unknown)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await profiles(unknown)).toBe(0);
  });

  test('without the account header: AUTHENTICATION_REQUIRED, auth not asked', async () => {
    const asked = t.auth.asked.length;
    await expect(identity(undefined)).rejects.toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
    expect(t.auth.asked.length).toBe(asked);
  });
});

describe('auth not running', () => {
  test('SERVICE_UNAVAILABLE naming the auth service; the context fails the same way', async () => {
    const accountId = t.auth.addAccount('down@example.com');
    await t.auth.close();
    await expect(identity(accountId)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('auth service is not running'),
    });
    await expect(t.ask(BrainSubjects.contextGet, { accountId })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(await profiles(accountId)).toBe(0);
  });
});
