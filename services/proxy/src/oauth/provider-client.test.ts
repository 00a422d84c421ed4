/**
 * The proxy's OAuth client with the catalogue's own definitions, their endpoints moved to a
 * recording server on loopback: the requests each provider's documentation asks for (body
 * format, client authentication, scope parameter, revocation call) and how its answers are read.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { ConnectorName } from '@pag/contracts';
import { providerNamed, providerSchema } from '@pag/contracts';
import { resolveConnectors } from '../connectors/catalogue.ts';
import type { OAuthConnector } from './provider-client.ts';
import {
  authorizationUrl,
  exchangeCode,
  isOAuthConnector,
  ProviderRefusedError,
  refreshTokens,
  revokeToken,
} from './provider-client.ts';

const CLIENT = { clientId: 'client-1', clientSecret: 'secret-1' };
const BASIC = `Basic ${Buffer.from('client-1:secret-1').toString('base64')}`;

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const seen: Seen[] = [];
let answer: { status: number; body: string } = { status: 200, body: '{}' };
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    res.writeHead(answer.status, answer.body === '' ? {} : { 'content-type': 'application/json' });
    res.end(answer.body);
  });
});
let origin = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen.length = 0;
});

const answerWith = (status: number, body: unknown) => {
  answer = { status, body: body === null ? '' : JSON.stringify(body) };
};

/** The catalogue's definition of `name` with every endpoint moved to the recording server. */
function moved(name: ConnectorName): OAuthConnector {
  const provider = providerNamed(name);
  if (provider?.auth.type !== 'oauth2') throw new Error(`${name} is not an OAuth connector`);
  const here = (url: string) => url.replace(new URL(url).origin, origin);
  const { auth } = provider;
  const definition = providerSchema({ allowLoopback: true }).parse({
    ...provider,
    name: `moved-${name}`,
    auth: {
      ...auth,
      authorizationUrl: here(auth.authorizationUrl),
      tokenUrl: here(auth.tokenUrl),
      revocation: auth.revocation === null ? null : { ...auth.revocation, url: here(auth.revocation.url) },
    },
    api: { ...provider.api, baseUrl: `${origin}/api`, allowedHosts: [new URL(origin).host] },
  });
  const connector = resolveConnectors({ custom: [{ ...definition, client: CLIENT }] }).get(`moved-${name}`);
  if (connector === undefined || !isOAuthConnector(connector)) throw new Error('not resolved');
  return connector;
}

const code = { code: 'the-code', redirectUri: 'https://gateway.example/callback', codeVerifier: null };

describe('Notion: JSON bodies with Basic client authentication', () => {
  test('the code exchange and the revocation send JSON, the client only in the Authorization header', async () => {
    const notion = moved('notion');
    answerWith(200, {
      access_token: 'ntn_access',
      refresh_token: 'ntn_refresh',
      bot_id: 'b',
      token_type: 'bearer',
    });
    const tokens = await exchangeCode(notion, code, 5_000);
    expect(tokens).toMatchObject({ accessToken: 'ntn_access', refreshToken: 'ntn_refresh', expiresAt: null });
    answerWith(200, { request_id: 'r' });
    expect(await revokeToken(notion, { value: 'ntn_access', hint: 'access_token' }, 5_000)).toBe(true);
    expect(seen.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'POST /v1/oauth/token',
      'POST /v1/oauth/revoke',
    ]);
    for (const request of seen) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers.authorization).toBe(BASIC);
      expect(request.body).not.toContain('secret-1');
    }
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: 'https://gateway.example/callback',
    });
    // Notion's revocation body names `token` alone.
    expect(JSON.parse(seen[1]?.body ?? '')).toEqual({ token: 'ntn_access' });
  });
});

describe("Slack: the owner's user token", () => {
  test('asks for user scopes, reads the code answer in authed_user and the refresh at the top', async () => {
    const slack = moved('slack');
    const url = new URL(
      authorizationUrl(slack, { state: 's', redirectUri: code.redirectUri, codeChallenge: null }),
    );
    expect(url.searchParams.get('user_scope')).toBe(
      'channels:read,channels:history,users:read,users.profile:read',
    );
    expect(url.searchParams.has('scope')).toBe(false);

    answerWith(200, {
      ok: true,
      app_id: 'A1',
      team: { id: 'T1' },
      authed_user: {
        id: 'U1',
        scope: 'channels:read,users:read',
        access_token: 'xoxe.xoxp-1',
        refresh_token: 'xoxe-1-first',
        expires_in: 43_200,
        token_type: 'user',
      },
    });
    const before = Date.now();
    const tokens = await exchangeCode(slack, code, 5_000);
    expect(tokens).toMatchObject({
      accessToken: 'xoxe.xoxp-1',
      refreshToken: 'xoxe-1-first',
      scopes: ['channels:read', 'users:read'],
    });
    expect(tokens.expiresAt?.getTime()).toBeGreaterThanOrEqual(before + 43_200_000);
    expect(seen[0]?.headers.authorization).toBe(BASIC);

    answerWith(200, {
      ok: true,
      access_token: 'xoxe.xoxp-2',
      refresh_token: 'xoxe-1-second',
      token_type: 'user',
      expires_in: 43_200,
    });
    expect(await refreshTokens(slack, 'xoxe-1-first', 5_000)).toMatchObject({
      accessToken: 'xoxe.xoxp-2',
      refreshToken: 'xoxe-1-second',
    });

    // Slack says no with 200 and ok: false.
    answerWith(200, { ok: false, error: 'invalid_refresh_token' });
    await expect(refreshTokens(slack, 'xoxe-1-first', 5_000)).rejects.toEqual(
      new ProviderRefusedError('invalid_refresh_token', 200),
    );
  });

  test('auth.revoke takes the access token itself; a 200 with ok: false is no revocation', async () => {
    const slack = moved('slack');
    answerWith(200, { ok: false, error: 'invalid_auth' });
    expect(await revokeToken(slack, { value: 'xoxe.xoxp-2', hint: 'access_token' }, 5_000)).toBe(false);
    answerWith(200, { ok: true, revoked: true });
    expect(await revokeToken(slack, { value: 'xoxe.xoxp-2', hint: 'access_token' }, 5_000)).toBe(true);
    // A refresh token is not an API credential: it is never presented as one.
    expect(await revokeToken(slack, { value: 'xoxe-1-second', hint: 'refresh_token' }, 5_000)).toBe(false);
    expect(seen.map((request) => [request.path, request.headers.authorization])).toEqual([
      ['/api/auth.revoke', 'Bearer xoxe.xoxp-2'],
      ['/api/auth.revoke', 'Bearer xoxe.xoxp-2'],
    ]);
  });
});

describe("GitHub: disconnecting deletes the app's grant", () => {
  test('DELETE /applications/{client_id}/grant with Basic client authentication and the token in JSON', async () => {
    const github = moved('github');
    answerWith(204, null);
    expect(await revokeToken(github, { value: 'gho_token', hint: 'access_token' }, 5_000)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'DELETE', path: '/applications/client-1/grant' });
    expect(seen[0]?.headers.authorization).toBe(BASIC);
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ access_token: 'gho_token' });
  });
});

describe('Google: the RFC 6749 form, offline access', () => {
  test('a form-encoded exchange with the client in the body; the authorization asks for offline access', async () => {
    const calendar = moved('google-calendar');
    const url = new URL(
      authorizationUrl(calendar, { state: 's', redirectUri: code.redirectUri, codeChallenge: 'challenge' }),
    );
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      access_type: 'offline',
      prompt: 'consent',
      code_challenge_method: 'S256',
      scope: 'https://www.googleapis.com/auth/calendar.readonly',
    });
    answerWith(200, { access_token: 'ya29.a', refresh_token: '1//r', expires_in: 3599 });
    await exchangeCode(calendar, { ...code, codeVerifier: 'verifier' }, 5_000);
    expect(seen[0]?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(seen[0]?.body))).toEqual({
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: 'https://gateway.example/callback',
      code_verifier: 'verifier',
      client_id: 'client-1',
      client_secret: 'secret-1',
    });
  });
});
