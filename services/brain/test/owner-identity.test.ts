/**
 * The owner's identity (BrainOwnerEndpoints.identityGet/Set): read and change only the fields
 * given, the time zone and locale checked (the error names the field), a fresh account seeded
 * first; tenancy: one account's change never reaches another's.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { BrainContext } from '@pag/contracts';
import { BrainOwnerEndpoints, BrainSubjects } from '@pag/contracts';
import type { TestBrain } from './support/start-test-brain.ts';
import { startTestBrain } from './support/start-test-brain.ts';

let t: TestBrain;
beforeAll(async () => {
  t = await startTestBrain();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const E = BrainOwnerEndpoints;
const send = (message: object) => t.authBus.request(E.identitySet.subject, message, { timeoutMs: 5_000 });

describe('brain.owner-identity.set', () => {
  test('a fresh account is seeded first, then only the given fields change; null clears one', async () => {
    const accountId = t.auth.addAccount('ident.owner@example.com');
    const set = await t.askOwner(E.identitySet, { accountId, timezone: 'Europe/Berlin', locale: 'de-DE' });
    expect(set).toEqual({
      name: 'ident.owner',
      email: 'ident.owner@example.com',
      timezone: 'Europe/Berlin',
      locale: 'de-DE',
      summary: null,
    });
    const renamed = await t.askOwner(E.identitySet, { accountId, name: 'Ada', summary: 'Engineer.' });
    expect(renamed).toMatchObject({ name: 'Ada', timezone: 'Europe/Berlin', summary: 'Engineer.' });
    const cleared = await t.askOwner(E.identitySet, { accountId, locale: null });
    expect(cleared).toMatchObject({ name: 'Ada', locale: null, timezone: 'Europe/Berlin' });
    expect(await t.askOwner(E.identityGet, { accountId })).toEqual(cleared);
    const { user } = await t.ask<BrainContext>(BrainSubjects.contextGet, { accountId });
    expect(user).toEqual(cleared);
    expect(t.auth.asked.filter((id) => id === accountId)).toHaveLength(1);
  });

  test('a time zone that is not IANA, or a locale that is not BCP 47, is a 400 naming the field', async () => {
    const accountId = t.auth.addAccount('ident.bad@example.com');
    await expect(send({ accountId, timezone: 'Mars/Olympus' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('timezone'),
    });
    await expect(send({ accountId, locale: 'not a locale!' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('locale'),
    });
    await expect(send({ accountId, email: 'other@example.com' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect(await t.db.identityProfile.count({ where: { accountId } })).toBe(0);
  });

  test('when auth cannot say who a fresh owner is, nothing is stored', async () => {
    const accountId = t.auth.addAccount('ident.down@example.com');
    t.auth.hold();
    try {
      await expect(t.askOwner(E.identitySet, { accountId, name: 'X' })).rejects.toMatchObject({
        code: 'UPSTREAM_TIMEOUT',
      });
    } finally {
      t.auth.release();
    }
    expect(await t.db.identityProfile.count({ where: { accountId } })).toBe(0);
  });
});

describe('tenancy', () => {
  test("account A's change never reaches account B", async () => {
    const a = t.auth.addAccount('ident.a@example.com');
    const b = t.auth.addAccount('ident.b@example.com');
    await t.askOwner(E.identitySet, { accountId: a, name: 'A', summary: 'A private summary' });
    expect(await t.askOwner(E.identityGet, { accountId: b })).toEqual({
      name: 'ident.b',
      email: 'ident.b@example.com',
      timezone: null,
      locale: null,
      summary: null,
    });
  });
});
