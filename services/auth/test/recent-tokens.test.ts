/**
 * An access token read for introspection is kept in memory for TOKEN_READ_CACHE_MS, and every way
 * a token stops working makes this replica forget it at once: its own revocations (tested where
 * they are: token-lifecycle and agents tests ask about the token before revoking it) and the
 * TokenRevokedEvent of another replica, which deletes rows this replica never saw deleted.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TokenRevokedEvent } from '@pag/contracts';
import { EventSubjects } from '@pag/contracts';
import { tokenSha256 } from '@pag/kit';
import { RecentTokens } from '../src/store/recent-tokens.ts';
import { createOwner, introspect, obtainTokens } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let accountId: string;
beforeAll(async () => {
  // Long enough that nothing expires during a test by itself.
  t = await startTestAuth({ tokenReadCacheMs: 5_000 });
  accountId = await createOwner(t.db);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const active = async (token: string) =>
  ((await (await introspect(t.url, token, RESOURCE_SERVER)).json()) as { active: boolean }).active;

/** What another replica does when it revokes: delete the rows, then tell everyone. */
async function revokeElsewhere(clientId: string, event: Omit<TokenRevokedEvent, 'revokedAt'>) {
  await t.db.oidcPayload.deleteMany({ where: { clientId, model: 'AccessToken' } });
  return () => t.bus.publish(EventSubjects.tokenRevoked, { ...event, revokedAt: new Date().toISOString() });
}

describe('tokens read a moment ago', () => {
  test('are answered from memory until another replica’s revocation event names the token', async () => {
    const { clientId, tokens } = await obtainTokens(t.url);
    expect(await active(tokens.access_token)).toBe(true);
    const publish = await revokeElsewhere(clientId, {
      accountId,
      clientId,
      tokenSha256: tokenSha256(tokens.access_token),
    });
    // The row is gone, but this replica has not heard yet: the memory answers (no query).
    expect(await active(tokens.access_token)).toBe(true);
    await publish();
    expect(await active(tokens.access_token)).toBe(false);
  });

  test('are forgotten for a whole (account, client) by an event without a token hash', async () => {
    const { clientId, tokens } = await obtainTokens(t.url);
    expect(await active(tokens.access_token)).toBe(true);
    const publish = await revokeElsewhere(clientId, { accountId, clientId, tokenSha256: null });
    await publish();
    expect(await active(tokens.access_token)).toBe(false);
  });

  test('an event about another client forgets nothing else', async () => {
    const { tokens } = await obtainTokens(t.url);
    const other = await obtainTokens(t.url);
    expect(await active(tokens.access_token)).toBe(true);
    await t.bus.publish(EventSubjects.tokenRevoked, {
      accountId,
      clientId: other.clientId,
      tokenSha256: null,
      revokedAt: new Date().toISOString(),
    });
    expect(await active(tokens.access_token)).toBe(true);
  });
});

describe('RecentTokens', () => {
  const payload = (exp: number) => ({ accountId: 'a', clientId: 'c', exp, grantId: 'g' });
  const token = (exp: number) => ({ payload: payload(exp), grantId: 'g', grant: { accountId: 'a' } });

  test('keeps a copy until the window or the token’s expiry ends, whichever is first', () => {
    let now = 1_000_000;
    const recent = new RecentTokens(1_000, () => now);
    recent.keep('k', 'raw', token(now / 1000 + 60), recent.generation);
    const first = recent.get('k');
    expect(first?.payload).toEqual(payload(now / 1000 + 60));
    if (first !== undefined) first.payload.accountId = 'changed';
    expect(recent.get('k')?.payload.accountId).toBe('a');
    now += 1_000;
    expect(recent.get('k')).toBeUndefined();

    recent.keep('soon', 'raw2', token(now / 1000 + 0.5), recent.generation);
    now += 500;
    expect(recent.get('soon')).toBeUndefined();
  });

  test('does not keep a read that began before something was forgotten', () => {
    const recent = new RecentTokens(1_000);
    const generation = recent.generation;
    recent.forgetGrant('unrelated');
    recent.keep('k', 'raw', token(Date.now() / 1000 + 60), generation);
    expect(recent.get('k')).toBeUndefined();
  });

  test('forgets by key, by grant, by token hash and by (account, client)', () => {
    const recent = new RecentTokens(1_000);
    const keepAll = () => {
      recent.keep('k1', 'raw1', token(Date.now() / 1000 + 60), recent.generation);
      recent.keep('k2', 'raw2', token(Date.now() / 1000 + 60), recent.generation);
    };
    keepAll();
    recent.forgetKey('k1');
    expect([recent.get('k1'), recent.get('k2')].map(Boolean)).toEqual([false, true]);
    keepAll();
    recent.forgetGrant('g');
    expect([recent.get('k1'), recent.get('k2')].map(Boolean)).toEqual([false, false]);
    keepAll();
    recent.forgetRevoked({ accountId: 'a', clientId: 'c', tokenSha256: tokenSha256('raw2') });
    expect([recent.get('k1'), recent.get('k2')].map(Boolean)).toEqual([true, false]);
    keepAll();
    recent.forgetRevoked({ accountId: 'a', clientId: 'other', tokenSha256: null });
    expect([recent.get('k1'), recent.get('k2')].map(Boolean)).toEqual([true, true]);
    recent.forgetRevoked({ accountId: 'a', clientId: 'c', tokenSha256: null });
    expect([recent.get('k1'), recent.get('k2')].map(Boolean)).toEqual([false, false]);
  });

  test('with a window of 0 keeps nothing', () => {
    const recent = new RecentTokens(0);
    recent.keep('k', 'raw', token(Date.now() / 1000 + 60), recent.generation);
    expect(recent.get('k')).toBeUndefined();
  });
});
