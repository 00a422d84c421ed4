/**
 * The resource-server steps as one express app over real HTTP, the way the gateway and the proxy
 * assemble them: request id, route lookup, bearer authentication, scope and the error handler.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import express from 'express';
import type { ActiveToken } from '../auth/introspection-types.ts';
import { closeServer, listen } from '../lifecycle/http-server.ts';
import { createLogger } from '../log/logger.ts';
import type { AuthFailureBudget, BearerIntrospector } from './authenticate.ts';
import { authenticate } from './authenticate.ts';
import { checkScope } from './check-scope.ts';
import { errorHandler } from './error-handler.ts';
import { requestId } from './request-id.ts';
import { routeLookup } from './route-lookup.ts';
import type { BearerIdentity } from './state.ts';
import { resourceState } from './state.ts';

const PUBLIC_URL = 'https://gateway.example';
const API = `${PUBLIC_URL}/api/v1`;
const ACCOUNT = '00000000-0000-4000-8000-000000000001';
const METADATA = `resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/api/v1"`;

function active(claims: Partial<ActiveToken>): ActiveToken {
  return {
    scopes: ['knowledge'],
    clientId: 'agent-client',
    accountId: ACCOUNT,
    subject: ACCOUNT,
    audience: [API],
    expiresAt: undefined,
    issuedAt: undefined,
    tokenType: 'access_token',
    extra: {},
    ...claims,
  };
}

/** Tokens the fake introspection knows; `identify` refuses the account named `refused`. */
const tokens = new Map<string, ActiveToken>([
  ['good', active({})],
  ['narrow', active({ scopes: ['chat'] })],
  ['github', active({ scopes: ['services:github:read'] })],
  ['other-audience', active({ audience: ['https://elsewhere.example/api/v1'] })],
  ['client-only', active({ accountId: undefined, subject: undefined })],
  ['refused-account', active({ accountId: 'refused' })],
  ['bad-claims', active({ accountId: 'bad-claims' })],
]);
/** Inactive tokens the fake introspection knows the reason of (as the auth service tells it). */
const inactive = new Map<string, 'expired' | 'revoked'>([
  ['expired', 'expired'],
  ['revoked', 'revoked'],
]);
let introspections = 0;
const introspector: BearerIntrospector<BearerIdentity> = {
  async check(token) {
    introspections += 1;
    const found = tokens.get(token);
    return found === undefined
      ? { active: null, reason: inactive.get(token) ?? 'unknown' }
      : { active: found };
  },
  identify(token, accountId) {
    if (accountId === 'refused') return null;
    if (accountId === 'bad-claims') throw new AppError('SERVICE_UNAVAILABLE', 'Malformed claims.');
    return { accountId, scopes: token.scopes };
  },
};

/** A budget of two rejected tokens per address, in memory. */
class TwoFailures implements AuthFailureBudget {
  readonly policy = { limit: 2, windowSeconds: 60 };
  readonly failures = new Map<string, number>();
  retryAfterSeconds(address: string): number {
    return (this.failures.get(address) ?? 0) > this.policy.limit ? 60 : 0;
  }
  async recordFailure(address: string): Promise<number> {
    const count = (this.failures.get(address) ?? 0) + 1;
    this.failures.set(address, count);
    return count > this.policy.limit ? 60 : 0;
  }
}

const errors: AppError[] = [];

function app(options: { budget?: AuthFailureBudget; withIntrospector?: boolean; proxyOnly?: boolean }) {
  const served = express();
  served.set('query parser', 'simple');
  served.use(requestId);
  served.use(
    routeLookup(
      options.proxyOnly ? { serves: (route) => route.service === 'proxy' && route.subject === null } : {},
    ),
  );
  served.use(express.json());
  served.use(
    authenticate({
      publicUrl: PUBLIC_URL,
      introspector: options.withIntrospector === false ? undefined : introspector,
      failures: options.budget,
    }),
  );
  served.use(checkScope(PUBLIC_URL));
  served.post('/api/v1/memory', () => {
    throw new Error('a bug with a secret stack');
  });
  served.use((_req, res) => {
    const { route, params, identity } = resourceState(res);
    res.json({ route: route?.id, params, identity });
  });
  served.use(
    errorHandler({
      logger: createLogger({ service: 'test', level: 'silent' }),
      publicUrl: PUBLIC_URL,
      onError: (_res, error) => errors.push(error),
    }),
  );
  return createServer(served);
}

const servers: Record<string, { server: Server; url: string }> = {};
const budget = new TwoFailures();
beforeAll(async () => {
  const apps = {
    plain: app({}),
    budgeted: app({ budget }),
    noAuthService: app({ withIntrospector: false }),
    proxyOnly: app({ proxyOnly: true }),
  };
  for (const [name, server] of Object.entries(apps)) {
    servers[name] = { server, url: `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}` };
  }
});
afterAll(async () => {
  for (const { server } of Object.values(servers)) await closeServer(server);
});

function call(name: string, path: string, init: RequestInit & { token?: string } = {}) {
  const headers = new Headers(init.headers);
  if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`);
  return fetch(`${servers[name]?.url}${path}`, { ...init, headers });
}

async function errorOf(response: Response) {
  return ((await response.json()) as { error: Record<string, unknown> }).error;
}

describe('request id', () => {
  test('a safe X-Request-Id is kept and answered; anything else is replaced', async () => {
    const kept = await call('plain', '/api/v1/', { headers: { 'x-request-id': 'req-abc_123' } });
    expect(kept.headers.get('x-request-id')).toBe('req-abc_123');
    const replaced = await call('plain', '/api/v1/', { headers: { 'x-request-id': 'no spaces <allowed>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9-]{8,}$/);
    expect(replaced.headers.get('x-request-id')).not.toBe('no spaces <allowed>');
  });
});

describe('route lookup', () => {
  test('the route table decides: a public route passes without a token, HEAD is looked up as GET', async () => {
    const index = await call('plain', '/api/v1/');
    expect(index.status).toBe(200);
    expect(await index.json()).toMatchObject({ route: 'discoveryIndex' });
    expect((await call('plain', '/api/v1/', { method: 'HEAD' })).status).toBe(200);
  });

  test('an unknown path is 404 with the path meant; another method is 405 with Allow', async () => {
    const doubled = await call('plain', '/api/v1/api/v1/brain/knowledge-base');
    expect(doubled.status).toBe(404);
    const error = await errorOf(doubled);
    expect(error).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
    expect(error.hint).toContain('Use GET /api/v1/brain/knowledge-base');
    const wrongMethod = await call('plain', '/api/v1/brain/knowledge-base', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD');
  });

  test('a server serving part of the table knows nothing of the rest', async () => {
    expect((await errorOf(await call('proxyOnly', '/api/v1/', {}))).code).toBe('ROUTE_NOT_FOUND');
    const proxied = await call('proxyOnly', '/api/v1/services/github/user/repos?page=2', { token: 'github' });
    expect(await proxied.json()).toMatchObject({
      route: 'proxyGet',
      params: { service: 'github', path: 'user/repos' },
    });
  });
});

describe('bearer authentication', () => {
  test('an active token of this API for an account: its identity is kept for later steps', async () => {
    const answer = await call('plain', '/api/v1/brain/knowledge-base', { token: 'good' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ identity: { accountId: ACCOUNT, scopes: ['knowledge'] } });
  });

  test('no token: 401 AUTHENTICATION_REQUIRED naming the resource metadata', async () => {
    const answer = await call('plain', '/api/v1/brain/knowledge-base');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(`Bearer ${METADATA}, scope="knowledge"`);
    expect(await errorOf(answer)).toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
  });

  test.each([
    ['an unknown token', 'unknown', 'The token is not known.'],
    [
      'a token of another audience',
      'other-audience',
      `The token was issued for another audience; this server accepts ${API}, https://gateway.example/mcp, https://gateway.example/, https://gateway.example.`,
    ],
    ['a token acting for no account', 'client-only', 'The token acts for no owner account.'],
    [
      'a token for an account the server does not accept',
      'refused-account',
      'The token acts for no owner account.',
    ],
  ])('%s: one 401 INVALID_TOKEN with the invalid_token challenge', async (_case, token, message) => {
    const answer = await call('plain', '/api/v1/brain/knowledge-base', { token });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer ${METADATA}, error="invalid_token", error_description="${message}", scope="knowledge"`,
    );
    expect(await errorOf(answer)).toMatchObject({ code: 'INVALID_TOKEN', message });
  });

  test.each([
    ['an expired token', 'expired', 'TOKEN_EXPIRED', 'The token has expired.'],
    ['a revoked token', 'revoked', 'TOKEN_REVOKED', 'The token was revoked.'],
  ])('%s: 401 with its own code, still the invalid_token challenge', async (_case, token, code, message) => {
    const answer = await call('plain', '/api/v1/brain/knowledge-base', { token });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer ${METADATA}, error="invalid_token", error_description="${message}", scope="knowledge"`,
    );
    expect(await errorOf(answer)).toMatchObject({ code, message });
  });

  test.each([
    ['not "Bearer <token>"', 'Basic abc'],
    ['two tokens', 'Bearer one two'],
    ['a token of our prefix cut short', 'Bearer pag_at_abc'],
    ['a token of our prefix with a kind we do not issue', `Bearer pag_zz_${'a'.repeat(65)}`],
  ])(
    'a malformed Authorization header (%s): 401 MALFORMED_TOKEN, never "unknown, expired or revoked"',
    async (_case, authorization) => {
      const before = introspections;
      const answer = await call('plain', '/api/v1/brain/knowledge-base', { headers: { authorization } });
      expect(answer.status).toBe(401);
      const error = await errorOf(answer);
      expect(error).toMatchObject({ code: 'MALFORMED_TOKEN' });
      expect(error.hint).toContain('Authorization: Bearer <token>');
      expect(error.hint).not.toMatch(/expired|revoked/);
      expect(introspections).toBe(before);
    },
  );

  test('a malformed Authorization header is invalid_request; a token in the query is refused', async () => {
    const malformed = await call('plain', '/api/v1/brain/knowledge-base', {
      headers: { authorization: 'Basic abc' },
    });
    expect(malformed.status).toBe(401);
    expect(malformed.headers.get('www-authenticate')).toBe(
      `Bearer ${METADATA}, error="invalid_request", error_description="The Authorization header must read 'Bearer <token>'.", scope="knowledge"`,
    );
    const inQuery = await call('plain', '/api/v1/?access_token=good');
    expect(inQuery.status).toBe(400);
    expect((await errorOf(inQuery)).code).toBe('TOKEN_IN_QUERY');
  });

  test("the server's refusal to read a token's claims is its error, not a 401", async () => {
    const answer = await call('plain', '/api/v1/brain/knowledge-base', { token: 'bad-claims' });
    expect(answer.status).toBe(503);
    expect((await errorOf(answer)).code).toBe('SERVICE_UNAVAILABLE');
  });

  test('no auth service: 503 on bearer routes, public routes still served', async () => {
    const answer = await call('noAuthService', '/api/v1/brain/knowledge-base', { token: 'good' });
    expect(answer.status).toBe(503);
    expect((await errorOf(answer)).code).toBe('SERVICE_UNAVAILABLE');
    expect((await call('noAuthService', '/api/v1/')).status).toBe(200);
  });

  test('rejected tokens count against the address; past the budget it is refused before introspection', async () => {
    for (const token of ['unknown', 'client-only']) {
      expect((await call('budgeted', '/api/v1/brain/knowledge-base', { token })).status).toBe(401);
    }
    expect((await call('budgeted', '/api/v1/brain/knowledge-base')).status).toBe(401); // no token: not counted
    const over = await call('budgeted', '/api/v1/brain/knowledge-base', { token: 'other-audience' });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('60');
    const before = introspections;
    const blocked = await call('budgeted', '/api/v1/brain/knowledge-base', { token: 'good' });
    expect(blocked.status).toBe(429);
    expect(introspections).toBe(before);
  });
});

describe('scope', () => {
  test('a token without the route scope: 403 naming it in the message and the challenge', async () => {
    const answer = await call('plain', '/api/v1/brain/knowledge-base', { token: 'narrow' });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer ${METADATA}, error="insufficient_scope", scope="knowledge"`,
    );
    expect(await errorOf(answer)).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      message: 'This endpoint needs the scope knowledge, which the token does not grant.',
    });
  });
});

describe('error handler', () => {
  test('a client mistake in the body is a 400 with what to fix, never a 500', async () => {
    const answer = await call('plain', '/api/v1/memory', {
      method: 'POST',
      token: 'good',
      headers: { 'content-type': 'application/json' },
      body: '{"text":',
    });
    expect(answer.status).toBe(400);
    expect((await errorOf(answer)).code).toBe('MALFORMED_JSON');
  });

  test('a bug is a masked 500 with the request id and no stack; the service is told the error', async () => {
    errors.length = 0;
    const answer = await call('plain', '/api/v1/memory', {
      method: 'POST',
      token: 'good',
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-bug-1' },
      body: '{}',
    });
    expect(answer.status).toBe(500);
    const text = await answer.text();
    expect(JSON.parse(text)).toEqual({
      error: {
        code: 'INTERNAL_ERROR',
        message: 'The request could not be completed.',
        hint: expect.any(String),
        requestId: 'req-bug-1',
      },
    });
    expect(text).not.toContain('secret stack');
    expect(errors.map((error) => error.code)).toEqual(['INTERNAL_ERROR']);
  });
});
