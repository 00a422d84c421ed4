/**
 * The authorization request and the code, against RFC 9700 and OAuth 2.1: each unsafe request is
 * refused the way the RFCs say (an error page when the redirect URI cannot be trusted, an error
 * redirect to the client otherwise), and a code is bound to its client, redirect URI and PKCE
 * verifier and redeemed once.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  authorizationUrl,
  authorizeInBrowser,
  createOwner,
  pkce,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let clientId: string;
beforeAll(async () => {
  t = await startTestAuth();
  await createOwner(t.db);
  clientId = await registerClient(t.url);
}, 60_000);
afterAll(async () => {
  await t?.close();
});

function params(overrides: Record<string, string | undefined> = {}) {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope: 'read',
    state: 'xyz',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
}

/** The first answer of the authorization endpoint, not followed. */
async function authorize(overrides: Record<string, string | undefined> = {}) {
  return fetch(authorizationUrl(t.url, params(overrides)), { redirect: 'manual' });
}

function errorRedirect(response: Response): URLSearchParams {
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get('location') ?? '');
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  // A token response type answers in the fragment, as its response mode requires.
  return location.hash === '' ? location.searchParams : new URLSearchParams(location.hash.slice(1));
}

/** A code for `verifier`'s challenge, through the owner's login and consent. */
async function codeFor(challenge: string): Promise<URL> {
  return authorizeInBrowser(t.url, authorizationUrl(t.url, params({ code_challenge: challenge })));
}

describe('authorization request', () => {
  test.each([
    ['without PKCE', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
    ['with the plain method', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['with a challenge but no method', { code_challenge_method: undefined }, 'invalid_request'],
    ['for the implicit flow', { response_type: 'token' }, 'unsupported_response_type'],
    ['for another resource', { resource: 'https://other.example/api' }, 'invalid_target'],
    ['with a scope outside the grammar', { scope: 'read Everything' }, 'invalid_scope'],
  ])('%s is sent back to the client as an error, with iss', async (_name, overrides, error) => {
    const answer = errorRedirect(await authorize(overrides));
    expect(answer.get('error')).toBe(error);
    expect(answer.get('state')).toBe('xyz');
    expect(answer.get('iss')).toBe(t.url);
  });

  test.each([
    ['a redirect URI not registered', { redirect_uri: 'http://127.0.0.1:9/other' }],
    // A loopback URI differing in the port only is allowed (RFC 8252; native-redirects.test.ts).
    ['an unknown client', { client_id: 'nobody' }],
  ])('%s gets an error page and no redirect', async (_name, overrides) => {
    const response = await authorize(overrides);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const page = await response.text();
    expect(page).toMatch(/<code>invalid_(redirect_uri|client)<\/code>/);
    expect(page).not.toMatch(/\s+at\s+\S+\.(js|ts):\d+/);
  });

  test('a successful answer carries code, state and iss (RFC 9207)', async () => {
    const callback = await codeFor(pkce().challenge);
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    expect(callback.searchParams.get('state')).toBe('xyz');
    expect(callback.searchParams.get('iss')).toBe(t.url);
  });
});

describe('code redemption', () => {
  const exchange = (code: string, overrides: Record<string, string | undefined> = {}) => {
    const body: Record<string, string> = {};
    const all = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      ...overrides,
    };
    for (const [name, value] of Object.entries(all)) if (value !== undefined) body[name] = value;
    return tokenRequest(t.url, body);
  };

  test.each([
    ['without the verifier', (_verifier: string) => ({ code_verifier: undefined })],
    ['with a wrong verifier', (_verifier: string) => ({ code_verifier: pkce().verifier })],
    [
      'with another redirect URI',
      (verifier: string) => ({ code_verifier: verifier, redirect_uri: 'http://127.0.0.1:9/other' }),
    ],
    [
      'without the redirect URI',
      (verifier: string) => ({ code_verifier: verifier, redirect_uri: undefined }),
    ],
  ])('%s is invalid_grant (or invalid_request) and issues nothing', async (_name, change) => {
    const { verifier, challenge } = pkce();
    const code = (await codeFor(challenge)).searchParams.get('code') as string;
    const response = await exchange(code, change(verifier));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/^invalid_(grant|request)$/);
  });

  test('by another client is invalid_grant', async () => {
    const { verifier, challenge } = pkce();
    const code = (await codeFor(challenge)).searchParams.get('code') as string;
    const other = await registerClient(t.url);
    const response = await exchange(code, { code_verifier: verifier, client_id: other });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  test('two concurrent redemptions of one code yield exactly one token set', async () => {
    const { verifier, challenge } = pkce();
    const code = (await codeFor(challenge)).searchParams.get('code') as string;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => exchange(code, { code_verifier: verifier })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 400, 400, 400, 400]);
    for (const answer of answers.filter((a) => a.status === 400)) {
      expect(await answer.json()).toMatchObject({ error: 'invalid_grant' });
    }
    const issued = (await answers.find((a) => a.status === 200)?.json()) as { access_token: string };
    expect(issued.access_token).toEqual(expect.any(String));
  });

  test('a code redeemed a second time fails, and the tokens of the first redemption are revoked', async () => {
    const { verifier, challenge } = pkce();
    const code = (await codeFor(challenge)).searchParams.get('code') as string;
    const first = await exchange(code, { code_verifier: verifier });
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as { refresh_token: string };
    const second = await exchange(code, { code_verifier: verifier });
    expect(second.status).toBe(400);
    const refreshed = await tokenRequest(t.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(400);
  });
});

describe('default scopes', () => {
  /** The scope of the token a request with `scope` ends in, through the owner's consent. */
  async function grantedScope(scope: string | undefined): Promise<string[]> {
    const { verifier, challenge } = pkce();
    const callback = await authorizeInBrowser(
      t.url,
      authorizationUrl(t.url, params({ scope, code_challenge: challenge })),
    );
    const response = await tokenRequest(t.url, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') as string,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(response.status).toBe(200);
    return String(((await response.json()) as { scope?: string }).scope ?? '')
      .split(' ')
      .sort();
  }

  test.each([
    ['no scope', undefined, ['chat', 'knowledge']],
    // The access token's scope is its resource's: the OpenID scopes are granted beside it.
    ['only OpenID scopes', 'openid offline_access', ['chat', 'knowledge']],
  ])('a request naming no API scope (%s) gets knowledge and chat', async (_name, scope, expected) => {
    expect(await grantedScope(scope)).toEqual(expected);
  });

  test('a request naming an API scope gets what it named, nothing more', async () => {
    expect(await grantedScope('read')).toEqual(['read']);
  });
});
