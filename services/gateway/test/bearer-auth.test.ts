import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { TokenRevokedEvent } from '@pag/contracts';
import { AppError, BrainSubjects, ErrorBody, EventSubjects, TokenCapabilities } from '@pag/contracts';
import { applyMigrations, TokenTags, tokenSha256 } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import {
  FakeAuthServer,
  freePort,
  startTestPostgres,
  TEST_INTROSPECTION_CLIENT,
  TEST_TOKEN_TAG_KEY,
} from '@pag/kit/testing';
import { gatewayDatabase } from '../src/database.ts';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

const PUBLIC_URL = 'https://gw.example';
const AUDIENCE = `${PUBLIC_URL}/api/v1`;
const METADATA = `resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/api/v1"`;
const introspectionEnv = {
  INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
  TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
  INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
};

let postgres: TestPostgres;
let auth: FakeAuthServer;
let gateway: TestGateway;
const exp = Math.floor(Date.now() / 1000) + 3600;

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
  auth = await FakeAuthServer.start();
  gateway = await startTestGateway({
    PUBLIC_URL,
    AUTH_URL: auth.url,
    DATABASE_URL: postgres.url,
    ...introspectionEnv,
  });
});
afterAll(async () => {
  await gateway?.[Symbol.asyncDispose]();
  await auth?.[Symbol.asyncDispose]();
  await postgres?.stop();
});
afterEach(() => auth.tokens.clear());

function issue(token: string, claims: Record<string, unknown> = {}): void {
  auth.tokens.set(token, {
    active: true,
    scope: 'knowledge',
    client_id: 'claude-desktop',
    sub: 'acc-1',
    account_id: 'acc-1',
    aud: AUDIENCE,
    exp,
    iat: exp - 3600,
    token_type: 'Bearer',
    ...claims,
  });
}

async function get(path: string, token?: string) {
  const response = await fetch(`${gateway.url}${path}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
}

function errorOf(body: unknown) {
  return ErrorBody.parse(body).error;
}

describe('401 under /api/v1', () => {
  test('without a token: the challenge names the protected-resource metadata', async () => {
    const { status, headers, body } = await get('/api/v1/tokens/me/capabilities');
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toBe(`Bearer ${METADATA}`);
    expect(errorOf(body).hint).toContain('/api/v1/handshakes');
  });

  test('an unknown token: INVALID_TOKEN with error="invalid_token" and the handshake hint', async () => {
    const { status, headers, body } = await get('/api/v1/tokens/me/capabilities', 'unknown-token');
    expect(status).toBe(401);
    expect(errorOf(body).code).toBe('INVALID_TOKEN');
    expect(errorOf(body).hint).toContain('/api/v1/handshakes');
    expect(headers.get('www-authenticate')).toBe(
      `Bearer ${METADATA}, error="invalid_token", error_description="The token is not known."`,
    );
  });

  test('a token issued for another audience is INVALID_TOKEN', async () => {
    issue('other-audience', { aud: 'https://other.example/api/v1' });
    const { status, headers, body } = await get('/api/v1/tokens/me/capabilities', 'other-audience');
    expect(status).toBe(401);
    expect(errorOf(body).code).toBe('INVALID_TOKEN');
    expect(errorOf(body).message).toContain(AUDIENCE);
    expect(headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  test('a token without an audience is INVALID_TOKEN', async () => {
    issue('no-audience', { aud: undefined });
    const { status } = await get('/api/v1/tokens/me/capabilities', 'no-audience');
    expect(status).toBe(401);
  });

  test('a revocation event makes the next call 401 at once, despite the cache', async () => {
    issue('soon-revoked');
    expect((await get('/api/v1/tokens/me/capabilities', 'soon-revoked')).status).toBe(200);
    auth.tokens.delete('soon-revoked');
    expect((await get('/api/v1/tokens/me/capabilities', 'soon-revoked')).status).toBe(200);
    await publishRevocation({ clientId: 'claude-desktop', tokenSha256: tokenSha256('soon-revoked') });
    expect((await get('/api/v1/tokens/me/capabilities', 'soon-revoked')).status).toBe(401);
  });
});

describe('why a token is refused: its own code, and the remedy for its kind', () => {
  const tags = new TokenTags([TEST_TOKEN_TAG_KEY]);
  afterEach(() => auth.inactive.clear());

  test.each([
    ['oauth', 'grant_type=refresh_token'],
    ['device', 'Sign a new Ed25519 assertion'],
    ['handshake', 'Start a new handshake (POST /api/v1/handshakes'],
    ['dashboard', 'Ask the owner for a new token on /dashboard/tokens'],
  ] as const)('an expired %s token: 401 TOKEN_EXPIRED whose hint is its remedy', async (kind, remedy) => {
    const token = tags.mint(kind);
    auth.inactive.set(token, 'expired');
    for (let i = 0; i < 2; i += 1) {
      // The second answer comes from the negative cache: the reason is kept with it.
      const { status, headers, body } = await get('/api/v1/tokens/me/capabilities', token);
      expect(status).toBe(401);
      expect(errorOf(body)).toMatchObject({ code: 'TOKEN_EXPIRED', message: 'The token has expired.' });
      expect(errorOf(body).hint).toContain(remedy);
      expect(headers.get('www-authenticate')).toBe(
        `Bearer ${METADATA}, error="invalid_token", error_description="The token has expired."`,
      );
    }
  });

  test('an expired OAuth token is told to refresh, never to start a handshake', async () => {
    const token = tags.mint('oauth');
    auth.inactive.set(token, 'expired');
    const { hint } = errorOf((await get('/api/v1/tokens/me/capabilities', token)).body);
    expect(hint).toContain('POST /oauth/token');
    expect(hint).not.toContain('handshake');
  });

  test('a revoked token: 401 TOKEN_REVOKED; an unknown one stays INVALID_TOKEN, telling nothing more', async () => {
    const revoked = tags.mint('handshake');
    auth.inactive.set(revoked, 'revoked');
    const refused = errorOf((await get('/api/v1/tokens/me/capabilities', revoked)).body);
    expect(refused).toMatchObject({ code: 'TOKEN_REVOKED', message: 'The token was revoked.' });
    expect(refused.hint).toContain('The owner revoked this token');
    const unknown = errorOf((await get('/api/v1/tokens/me/capabilities', tags.mint('handshake'))).body);
    expect(unknown).toMatchObject({ code: 'INVALID_TOKEN', message: 'The token is not known.' });
  });

  test('a token revoked while its active answer is cached: the revocation event makes it TOKEN_REVOKED', async () => {
    const token = tags.mint('oauth');
    issue(token);
    expect((await get('/api/v1/tokens/me/capabilities', token)).status).toBe(200);
    auth.tokens.delete(token);
    await publishRevocation({ clientId: 'claude-desktop', tokenSha256: tokenSha256(token) });
    expect(errorOf((await get('/api/v1/tokens/me/capabilities', token)).body).code).toBe('TOKEN_REVOKED');
  });

  test.each([
    ['not "Bearer <token>"', 'Token abc'],
    ['our prefix, cut short', `Bearer ${'pag_at_'}${'x'.repeat(20)}`],
  ])(
    'a malformed Authorization header (%s): 401 MALFORMED_TOKEN with a hint about its form',
    async (_case, authorization) => {
      const before = auth.introspections;
      const response = await fetch(`${gateway.url}/api/v1/tokens/me/capabilities`, {
        headers: { authorization },
      });
      expect(response.status).toBe(401);
      const error = errorOf(await response.json());
      expect(error.code).toBe('MALFORMED_TOKEN');
      expect(error.hint).toContain('Authorization: Bearer <token>');
      expect(error.hint).not.toMatch(/unknown, expired or revoked/);
      expect(auth.introspections).toBe(before);
    },
  );

  test.each([
    ['handshake', /A handshake cannot grant chat .*\/dashboard\/tokens/],
    ['dashboard', /A handshake cannot grant chat .*\/dashboard\/tokens/],
    ['oauth', /A handshake cannot grant chat .*consent to it through OAuth/],
  ] as const)(
    'a %s token lacking chat: 403 INSUFFICIENT_SCOPE saying a handshake cannot grant it',
    async (kind, hint) => {
      const token = tags.mint(kind);
      issue(token, { scope: 'knowledge', token_kind: kind });
      const response = await fetch(`${gateway.url}/api/v1/brain/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      });
      expect(response.status).toBe(403);
      const error = errorOf(await response.json());
      expect(error.code).toBe('INSUFFICIENT_SCOPE');
      expect(error.hint).toMatch(hint);
    },
  );

  test('a handshake token lacking a scope a handshake can bring is told which scope to request', async () => {
    const token = tags.mint('handshake');
    issue(token, { scope: 'chat', token_kind: 'handshake' });
    const { status, body } = await get('/api/v1/brain/knowledge-base', token);
    expect(status).toBe(403);
    expect(errorOf(body).hint).toContain('a new handshake (POST /api/v1/handshakes) requesting read');
  });
});

describe('tokens of ours are read before anything else', () => {
  const tags = new TokenTags([TEST_TOKEN_TAG_KEY]);
  const flipTag = (token: string) =>
    `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;

  test('a right one is introspected; with a flipped tag character it is 401 without introspection', async () => {
    const token = tags.mint('dashboard');
    const forged = flipTag(token);
    issue(token);
    issue(forged);
    const before = auth.introspections;
    expect((await get('/api/v1/tokens/me/capabilities', token)).status).toBe(200);
    expect(auth.introspections).toBe(before + 1);
    const { status, headers, body } = await get('/api/v1/tokens/me/capabilities', forged);
    expect(status).toBe(401);
    expect(errorOf(body).code).toBe('INVALID_TOKEN');
    expect(headers.get('www-authenticate')).toBe(
      `Bearer ${METADATA}, error="invalid_token", error_description="The token is not known."`,
    );
    // A fresh forgery each time, as an attacker sends them: none reaches the auth service.
    for (const kind of ['oauth', 'handshake', 'device'] as const)
      expect((await get('/api/v1/tokens/me/capabilities', flipTag(tags.mint(kind)))).status).toBe(401);
    expect(auth.introspections).toBe(before + 1);
  });

  test('a refresh token of ours is never a bearer token: 401 without introspection', async () => {
    const refresh = tags.mint('refresh');
    issue(refresh);
    const before = auth.introspections;
    expect((await get('/api/v1/tokens/me/capabilities', refresh)).status).toBe(401);
    expect(auth.introspections).toBe(before);
  });
});

describe('401 raised behind the gateway', () => {
  test("a service's INVALID_TOKEN gets the same challenge", async () => {
    issue('accepted-here', { scope: 'knowledge' });
    const subscription = await gateway.bus.handle(BrainSubjects.knowledgeList, () => {
      throw new AppError('INVALID_TOKEN', 'The grant behind this token is gone.');
    });
    try {
      const { status, headers } = await get('/api/v1/brain/knowledge-base', 'accepted-here');
      expect(status).toBe(401);
      expect(headers.get('www-authenticate')).toBe(`Bearer ${METADATA}, error="invalid_token"`);
    } finally {
      await subscription.close();
    }
  });
});

describe('403 for insufficient scope', () => {
  test('names the missing scope in the message and the challenge', async () => {
    issue('chat-only', { scope: 'chat' });
    const { status, headers, body } = await get('/api/v1/brain/knowledge-base', 'chat-only');
    expect(status).toBe(403);
    expect(errorOf(body).code).toBe('INSUFFICIENT_SCOPE');
    expect(errorOf(body).message).toContain('knowledge');
    expect(headers.get('www-authenticate')).toBe(
      `Bearer ${METADATA}, error="insufficient_scope", scope="knowledge"`,
    );
  });

  test('a proxied path needs the resource sub-scope of its service', async () => {
    issue('gitlab-reader', { scope: 'services:gitlab:read' });
    const { status, headers } = await get('/api/v1/services/github/repos', 'gitlab-reader');
    expect(status).toBe(403);
    expect(headers.get('www-authenticate')).toContain('scope="services:github:repos:read"');
  });

  test('a granting token reaches the service', async () => {
    issue('reader', { scope: 'knowledge' });
    const subscription = await gateway.bus.handle(BrainSubjects.knowledgeList, () => ({ documents: [] }));
    try {
      const { status, body } = await get('/api/v1/brain/knowledge-base', 'reader');
      expect(status).toBe(200);
      expect(body).toEqual({ documents: [] });
    } finally {
      await subscription.close();
    }
  });
});

describe('GET /api/v1/tokens/me/capabilities', () => {
  test('lists the scopes as issued and expanded, the client, expiry, plan and endpoints', async () => {
    issue('caps', { scope: 'chat services:github:read', plan: 'pro' });
    const { status, body } = await get('/api/v1/tokens/me/capabilities', 'caps');
    expect(status).toBe(200);
    const capabilities = TokenCapabilities.parse(body);
    expect(capabilities).toMatchObject({
      clientId: 'claude-desktop',
      agent: null,
      tokenKind: 'oauth',
      scopes: ['chat', 'services:github:read'],
      expiresAt: new Date(exp * 1000).toISOString(),
      plan: 'pro',
      limits: { daily: null, monthly: null },
    });
    expect(capabilities.expanded).toEqual(expect.arrayContaining(['chat', 'services:github:read']));
    const allowed = new Map(capabilities.endpoints.map((endpoint) => [endpoint.id, endpoint.allowed]));
    expect(allowed.get('chat')).toBe(true);
    // Only what the token may call is listed.
    expect(allowed.has('knowledgeBase')).toBe(false);
    expect(allowed.get('tokenCapabilities')).toBe(true);
    expect([...allowed.values()].every((value) => value)).toBe(true);
    // Nothing announced a brain here: its endpoint says so; the gateway's own are available.
    const chat = capabilities.endpoints.find((endpoint) => endpoint.id === 'chat');
    expect(chat).toMatchObject({ available: false, reason: 'The brain service is not running.' });
    expect(capabilities.endpoints.find((endpoint) => endpoint.id === 'tokenCapabilities')?.available).toBe(
      true,
    );
  });

  test("names the token's agent, its kind and its limits with what it used of them", async () => {
    issue('agent-token', {
      client_id: 'agt_caps',
      token_kind: 'dashboard',
      agent_id: 'ag_caps',
      agent_name: 'Reporting bot',
      limit_daily: 50,
      limit_monthly: null,
    });
    await get('/api/v1/tokens/me/capabilities', 'agent-token');
    const { body } = await get('/api/v1/tokens/me/capabilities', 'agent-token');
    const capabilities = TokenCapabilities.parse(body);
    const now = new Date();
    const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
    expect(capabilities).toMatchObject({
      clientId: 'agt_caps',
      agent: { id: 'ag_caps', name: 'Reporting bot' },
      tokenKind: 'dashboard',
      limits: { daily: { limit: 50, used: 2, resetsAt: tomorrow.toISOString() }, monthly: null },
    });
  });

  test('agent claims that break their schema are the auth service at fault: 503, not unlimited', async () => {
    issue('odd-claims', { limit_daily: 'lots' });
    const { status, body } = await get('/api/v1/tokens/me/capabilities', 'odd-claims');
    expect(status).toBe(503);
    expect(errorOf(body).code).toBe('SERVICE_UNAVAILABLE');
  });

  test("the plan is 'free' when introspection does not state it", async () => {
    issue('no-plan', { scope: 'read' });
    const { body } = await get('/api/v1/tokens/me/capabilities', 'no-plan');
    expect(TokenCapabilities.parse(body).plan).toBe('free');
  });
});

describe('the auth service unreachable', () => {
  test('a token cannot be checked: 503, not 401', async () => {
    await using down = await startTestGateway({
      PUBLIC_URL,
      AUTH_URL: `http://127.0.0.1:${await freePort()}`,
      DATABASE_URL: postgres.url,
      ...introspectionEnv,
    });
    const response = await fetch(`${down.url}/api/v1/tokens/me/capabilities`, {
      headers: { authorization: 'Bearer some-token' },
    });
    expect(response.status).toBe(503);
    expect(errorOf(await response.json()).code).toBe('SERVICE_UNAVAILABLE');
  });
});

/**
 * Publishes a revocation and resolves once the gateway has seen it: the memory bus delivers a
 * message to subscribers in the order they subscribed, and the gateway subscribed at start-up.
 */
async function publishRevocation(event: Pick<TokenRevokedEvent, 'clientId' | 'tokenSha256'>) {
  const { promise: seen, resolve } = Promise.withResolvers<void>();
  const after = await gateway.bus.subscribe(EventSubjects.tokenRevoked, () => resolve());
  try {
    const payload: TokenRevokedEvent = { accountId: 'acc-1', revokedAt: new Date().toISOString(), ...event };
    await gateway.bus.publish(EventSubjects.tokenRevoked, payload);
    await seen;
  } finally {
    await after.close();
  }
}
