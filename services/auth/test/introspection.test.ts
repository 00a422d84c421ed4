/**
 * Introspection (RFC 7662) is for the configured resource servers only. Everyone else, including
 * a client asking about its own token, is refused the same way whatever the token, so the
 * endpoint tells them nothing; a resource server with a wrong secret is refused too.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { TOKEN_INACTIVE_HEADER } from '@pag/contracts';
import { purgeExpiredPayloads } from '../src/store/purge-job.ts';
import { createOwner, introspect, obtainTokens } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let clientId: string;
let accessToken: string;
beforeAll(async () => {
  t = await startTestAuth();
  await createOwner(t.db);
  const obtained = await obtainTokens(t.url);
  clientId = obtained.clientId;
  accessToken = obtained.tokens.access_token;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${t.url}/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body).toString(),
  });

describe('introspection', () => {
  test('a resource server learns everything about an active token', async () => {
    const response = await introspect(t.url, accessToken, RESOURCE_SERVER);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ active: true, client_id: clientId, token_type: 'Bearer' });
  });

  test('a resource server learns nothing of an unknown token', async () => {
    expect(await (await introspect(t.url, 'not-a-token', RESOURCE_SERVER)).json()).toEqual({ active: false });
  });

  test('an inactive answer stays {"active": false} and names why in a header: revoked', async () => {
    const { clientId: revoker, tokens } = await obtainTokens(t.url);
    const revoked = await fetch(`${t.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: revoker }).toString(),
    });
    expect(revoked.status).toBe(200);
    const response = await introspect(t.url, tokens.access_token, RESOURCE_SERVER);
    expect(await response.json()).toEqual({ active: false });
    expect(response.headers.get(TOKEN_INACTIVE_HEADER)).toBe('revoked');
  });

  test('expired: named so, and still after the purge (access tokens are kept a while past expiry)', async () => {
    const { clientId: expiring, tokens } = await obtainTokens(t.url);
    await t.db.$executeRaw`
      UPDATE "auth"."oidc_payloads" SET expires_at = now() - interval '1 minute'
       WHERE model = 'AccessToken' AND client_id = ${expiring}`;
    const response = await introspect(t.url, tokens.access_token, RESOURCE_SERVER);
    expect(await response.json()).toEqual({ active: false });
    expect(response.headers.get(TOKEN_INACTIVE_HEADER)).toBe('expired');
    await purgeExpiredPayloads(t.db).run();
    const later = await introspect(t.url, tokens.access_token, RESOURCE_SERVER);
    expect(later.headers.get(TOKEN_INACTIVE_HEADER)).toBe('expired');
  });

  test('an unknown token, even one in our shape, gets no reason: nothing is told about similar tokens', async () => {
    const { tokens } = await obtainTokens(t.url);
    // Same kind, same length, one character changed: a token that never existed.
    const similar = `${tokens.access_token.slice(0, 10)}${tokens.access_token[10] === 'A' ? 'B' : 'A'}${tokens.access_token.slice(11)}`;
    for (const token of ['not-a-token', similar]) {
      const response = await introspect(t.url, token, RESOURCE_SERVER);
      expect(await response.json()).toEqual({ active: false });
      expect(response.headers.get(TOKEN_INACTIVE_HEADER)).toBeNull();
    }
  });

  test.each([
    ['the token’s own public client', () => post({ token: accessToken, client_id: clientId })],
    ['the same, for an unknown token', () => post({ token: 'not-a-token', client_id: clientId })],
    ['no client at all', () => post({ token: accessToken })],
    [
      'a public client in HTTP Basic',
      () =>
        post(
          { token: accessToken },
          { authorization: `Basic ${Buffer.from(`${clientId}:`).toString('base64')}` },
        ),
    ],
  ])('%s is refused with 401 invalid_client', async (_name, request) => {
    const response = await request();
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });

  test('a resource server with a wrong secret is refused', async () => {
    const response = await introspect(t.url, accessToken, {
      ...RESOURCE_SERVER,
      clientSecret: 'x'.repeat(40),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client' });
  });

  test('a resource server cannot use its credentials at the token endpoint', async () => {
    const response = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${RESOURCE_SERVER.clientId}:${RESOURCE_SERVER.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(
      /^(unsupported_grant_type|unauthorized_client)$/,
    );
  });
});
