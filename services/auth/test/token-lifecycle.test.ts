/**
 * The token lifecycle as a client and a resource server see it: code exchange, introspection
 * (active, with the account), refresh with rotation, reuse of a rotated refresh token revoking the
 * grant, revocation, and the TokenRevokedEvent each revocation publishes on the bus.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TokenRevokedEvent } from '@pag/contracts';
import { EventSubjects } from '@pag/contracts';
import { tokenSha256 } from '@pag/kit';
import { createOwner, introspect, obtainTokens, tokenRequest } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let accountId: string;
const events: TokenRevokedEvent[] = [];

beforeAll(async () => {
  t = await startTestAuth();
  accountId = await createOwner(t.db);
  await t.bus.subscribe<TokenRevokedEvent>(EventSubjects.tokenRevoked, (message) => {
    events.push(message.data);
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const introspected = async (token: string) =>
  (await (await introspect(t.url, token, RESOURCE_SERVER)).json()) as Record<string, unknown>;

const introspectedWithHint = async (token: string, hint: string) => {
  const basic = Buffer.from(`${RESOURCE_SERVER.clientId}:${RESOURCE_SERVER.clientSecret}`).toString('base64');
  const response = await fetch(`${t.url}/oauth/introspect`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: hint }).toString(),
  });
  return (await response.json()) as Record<string, unknown>;
};

describe('tokens', () => {
  // The adapter reads a refresh token of the same value with every access token lookup, and
  // remembers its absence for a moment (read-ahead.ts): each hint must still find each kind.
  test.each(['access_token', 'refresh_token'])(
    'with the %s hint, either kind of token is found',
    async (hint) => {
      const { tokens } = await obtainTokens(t.url, { scope: 'read' });
      expect(await introspectedWithHint(tokens.access_token, hint)).toMatchObject({
        active: true,
        token_type: 'Bearer',
      });
      expect(await introspectedWithHint(tokens.refresh_token as string, hint)).toMatchObject({
        active: true,
      });
      expect(await introspectedWithHint('no-such-token-0123456789abcdefghijklmnopq', hint)).toEqual({
        active: false,
      });
    },
  );

  test('an access token introspects as active, for the API, with the owner account', async () => {
    const { clientId, tokens } = await obtainTokens(t.url, { scope: 'read services:github:read' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.scope?.split(' ').sort()).toEqual(['read', 'services:github:read']);
    expect(await introspected(tokens.access_token)).toMatchObject({
      active: true,
      client_id: clientId,
      sub: accountId,
      account_id: accountId,
      aud: t.apiResource,
      token_type: 'Bearer',
      scope: 'read services:github:read',
      iss: t.url,
    });
  });

  test('refresh rotates; reusing the rotated token revokes the whole grant and evicts caches', async () => {
    const { clientId, tokens } = await obtainTokens(t.url);
    const refresh = (token: string) =>
      tokenRequest(t.url, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
    const first = await refresh(tokens.refresh_token as string);
    expect(first.status).toBe(200);
    const rotated = (await first.json()) as { access_token: string; refresh_token: string };
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(await introspected(rotated.access_token)).toMatchObject({ active: true, aud: t.apiResource });

    const before = events.length;
    const reuse = await refresh(tokens.refresh_token as string);
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    expect(events.slice(before)).toContainEqual(
      expect.objectContaining({ accountId, clientId, tokenSha256: null }),
    );
    expect(await introspected(rotated.access_token)).toEqual({ active: false });
    expect(await introspected(tokens.access_token)).toEqual({ active: false });
    expect((await refresh(rotated.refresh_token)).status).toBe(400);
  });

  test('revoking an access token publishes its hash and makes it inactive at once', async () => {
    const { clientId, tokens } = await obtainTokens(t.url);
    // Asked about first, so the token is kept in memory (store/recent-tokens.ts) when revoked.
    expect(await introspected(tokens.access_token)).toMatchObject({ active: true });
    const before = events.length;
    const revoked = await fetch(`${t.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(events.slice(before)).toContainEqual({
      accountId,
      clientId,
      tokenSha256: tokenSha256(tokens.access_token),
      revokedAt: expect.any(String),
    });
    expect(await introspected(tokens.access_token)).toEqual({ active: false });
  });
});
