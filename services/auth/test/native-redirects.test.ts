/**
 * Native apps (RFC 8252): a loopback redirect URI matches with any port (§7.3), and an app of
 * application_type native may register a private-use scheme (§7.1). Everything else stays exact:
 * another path, another loopback host, another port of an https URI, http to a remote host.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  authorizationUrl,
  authorizeInBrowser,
  createOwner,
  pkce,
  register,
  registerClient,
  tokenRequest,
} from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
beforeAll(async () => {
  t = await startTestAuth();
  await createOwner(t.db);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

function authorize(clientId: string, redirectUri: string, challenge = pkce().challenge) {
  return authorizationUrl(t.url, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'read',
    state: 'native',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
}

/** The authorization endpoint's first answer: an error page (400, no redirect) or onwards. */
async function firstAnswer(clientId: string, redirectUri: string): Promise<Response> {
  return fetch(authorize(clientId, redirectUri), { redirect: 'manual' });
}

describe('loopback redirect URIs match with any port (RFC 8252 §7.3)', () => {
  test.each([
    ['127.0.0.1 without a port', 'http://127.0.0.1/callback', 'http://127.0.0.1:53122/callback'],
    ['127.0.0.1 with another port', 'http://127.0.0.1:9/callback', 'http://127.0.0.1:61000/callback'],
    ['[::1]', 'http://[::1]/cb', 'http://[::1]:4444/cb'],
    ['localhost', 'http://localhost:3000/cb?x=1', 'http://localhost:3001/cb?x=1'],
  ])('%s: the code reaches the port asked for and is redeemed there', async (_name, registered, asked) => {
    const clientId = await registerClient(t.url, { redirect_uris: [registered] });
    const { verifier, challenge } = pkce();
    const callback = await authorizeInBrowser(t.url, authorize(clientId, asked, challenge));
    const expected = new URL(asked);
    expect([callback.origin, callback.pathname]).toEqual([expected.origin, expected.pathname]);
    const code = callback.searchParams.get('code') as string;
    expect(code).toEqual(expect.any(String));
    const tokens = await tokenRequest(t.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: asked,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(tokens.status).toBe(200);
  });

  test.each([
    ['another path', 'http://127.0.0.1/callback', 'http://127.0.0.1:5000/other'],
    ['another loopback host', 'http://127.0.0.1/callback', 'http://localhost:5000/callback'],
    ['another port of an https URI', 'https://agent.example/callback', 'https://agent.example:8443/callback'],
    ['a remote http host with the same path', 'http://127.0.0.1/callback', 'http://agent.example/callback'],
  ])('%s is still refused with an error page', async (_name, registered, asked) => {
    const clientId = await registerClient(t.url, { redirect_uris: [registered] });
    const response = await firstAnswer(clientId, asked);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('<code>invalid_redirect_uri</code>');
  });
});

describe('private-use schemes for native apps (RFC 8252 §7.1)', () => {
  test.each([
    ['a reverse-domain scheme', 'com.example.agent:/oauth/callback'],
    ['an app scheme with an authority', 'cursor://anysphere.cursor-retrieval/oauth/callback'],
  ])('%s is registered for application_type native, and the code goes there', async (_name, uri) => {
    const clientId = await registerClient(t.url, { application_type: 'native', redirect_uris: [uri] });
    const callback = await authorizeInBrowser(t.url, authorize(clientId, uri));
    expect(callback.href.startsWith(`${uri}?`)).toBe(true);
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
  });

  test.each([
    [
      'a private-use scheme for a web client',
      { redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/callback'] },
      /application_type "native"/,
    ],
    [
      'http to a remote host for a native client',
      { application_type: 'native', redirect_uris: ['http://agent.example/callback'] },
      /must use https, or http on a loopback host/,
    ],
    [
      'file: for a native client',
      { application_type: 'native', redirect_uris: ['file:///tmp/cb'] },
      /must not use the file: scheme/,
    ],
    [
      'ws: for a native client',
      { application_type: 'native', redirect_uris: ['ws://agent.example/cb'] },
      /must not use the ws: scheme/,
    ],
  ])('refuses %s', async (_name, metadata, description) => {
    const response = await register(t.url, metadata);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_redirect_uri');
    expect(body.error_description).toMatch(description);
  });
});
