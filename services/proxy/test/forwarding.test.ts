/**
 * The proxied calls over HTTP, as the gateway forwards them (path unchanged, the caller's
 * Authorization, identity headers), against a stand-in connected service on loopback: the token
 * is introspected here, the scope checked, the owner's credential decrypted and sent, nothing of
 * the caller's reaches the third party, bodies stream both ways, and failures have the contracts'
 * error body.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ErrorBody } from '@pag/contracts';
import { createPrismaClient, MAX_SKEW_SECONDS, signGatewayRequest, TokenTags } from '@pag/kit';
import {
  eventually,
  freePort,
  gatewayHeaders,
  TEST_GATEWAY_SECRET,
  TEST_TOKEN_TAG_KEY,
} from '@pag/kit/testing';
import { proxyDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import type { Arrival } from './support/fake-upstream.ts';
import { FakeUpstream, MiB } from './support/fake-upstream.ts';
import { httpCall } from './support/http-call.ts';
import type { TestProxy } from './support/start-test-proxy.ts';
import { API_AUDIENCE, startTestProxy } from './support/start-test-proxy.ts';

const BODY_LIMIT = 8 * MiB;
const owner = randomUUID();
const stranger = randomUUID();
const secrets = {
  github: 'ghp_ownerSecret123',
  figma: 'figd_ownerSecret456',
  slack: 'xoxb-owner',
  notion: 'ntn_owner',
};

let stack: TestProxy;
let upstream: FakeUpstream;
const url = (path: string) => `${stack.proxy.url}${path}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  upstream = await FakeUpstream.start();
  const closedPort = await freePort();
  stack = await startTestProxy({
    CONNECTOR_BASE_URLS: JSON.stringify({
      github: `${upstream.url}/gh`,
      figma: `${upstream.url}/figma`,
      slack: `${upstream.url}/slack`,
      notion: `http://127.0.0.1:${closedPort}`,
    }),
    // UPSTREAM_TIMEOUT_MS stays at its default (8 s): a 6 MiB upload or a slow answer on a loaded
    // machine is not "a service slower than UPSTREAM_TIMEOUT_MS"; the timeout test has its own proxy.
    BODY_LIMIT_BYTES: String(BODY_LIMIT),
  });
  for (const [service, value] of Object.entries(secrets)) {
    await stack.operator.storeApiKeyConnection({ accountId: owner, service, label: 'main', value });
  }
  const issue = (token: string, accountId: string, scopes: string[], audience = API_AUDIENCE) =>
    stack.auth.issue(token, { accountId, scopes, audience });
  issue('full-token', owner, ['full']);
  issue('github-read-token', owner, ['services:github:read']);
  issue('repos-read-token', owner, ['services:github:repos:read']);
  issue('read-token', owner, ['read']);
  issue('stranger-token', stranger, ['full']);
  issue('other-audience-token', owner, ['full'], 'https://elsewhere.example/api/v1');
}, 60_000);

afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
  await upstream?.[Symbol.asyncDispose]();
});

async function expectError(
  answer: { status: number; json(): unknown },
  status: number,
  code: string,
): Promise<ErrorBody['error']> {
  expect(answer.status).toBe(status);
  const body = ErrorBody.parse(answer.json());
  expect(body.error.code).toBe(code);
  return body.error;
}

function lastArrival(): Arrival {
  const arrival = upstream.arrivals.at(-1);
  if (arrival === undefined) throw new Error('nothing arrived upstream');
  return arrival;
}

describe('a connected service', () => {
  test('GET reaches {baseUrl}/{path}?{query} with the vault credential and nothing of the caller', async () => {
    const answer = await httpCall(
      url('/api/v1/services/github/repos/octo/hello%20world?per_page=5&q=a%2Fb'),
      {
        headers: {
          ...bearer('full-token'),
          cookie: 'pag_session=owner-cookie',
          'pag-account-id': stranger,
          'pag-scopes': 'full',
          'x-request-id': 'req-get-1',
          'x-forwarded-for': '10.1.2.3',
          forwarded: 'for=10.1.2.3',
          'user-agent': 'agent/1.0',
          accept: 'application/json',
          'x-http-method-override': 'DELETE',
          'x-http-method': 'DELETE',
          'x-method-override': 'DELETE',
          'x-original-url': '/gh/admin',
          'x-rewrite-url': '/gh/admin',
        },
      },
    );
    expect(answer.status).toBe(201);
    const arrival = lastArrival();
    expect(arrival.method).toBe('GET');
    expect(arrival.url).toBe('/gh/repos/octo/hello%20world?per_page=5&q=a%2Fb');
    expect(arrival.headers.authorization).toBe(`Bearer ${secrets.github}`);
    expect(arrival.headers.host).toBe(new URL(upstream.url).host);
    expect(arrival.headers['user-agent']).toBe('agent/1.0');
    expect(arrival.headers.accept).toBe('application/json');
    const names = Object.keys(arrival.headers);
    expect(
      names.filter((name) =>
        /^(cookie|pag-|x-forwarded-|forwarded|x-request-id|x-http-method|x-method-override|x-original-url|x-rewrite-url)/.test(
          name,
        ),
      ),
    ).toEqual([]);
    expect(JSON.stringify(arrival.headers)).not.toContain('full-token');

    expect(answer.headers['x-request-id']).toBe('req-get-1');
    expect(answer.headers['x-ratelimit-remaining']).toBe('4999');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.headers['cache-control']).toBeUndefined();
  });

  test("a connector's own header carries its credential; the caller cannot supply one", async () => {
    const answer = await httpCall(url('/api/v1/services/figma/me'), {
      headers: { ...bearer('full-token'), 'x-figma-token': 'caller-chosen' },
    });
    expect(answer.status).toBe(201);
    const arrival = lastArrival();
    expect(arrival.url).toBe('/figma/me');
    expect(arrival.headers['x-figma-token']).toBe(secrets.figma);
    expect(arrival.headers.authorization).toBeUndefined();
  });

  test('a large answer streams back: its head and first bytes arrive while the service still sends', async () => {
    upstream.release = Promise.withResolvers<void>();
    const req = request(url('/api/v1/services/github/hold'), {
      headers: { ...bearer('full-token'), ...gatewayHeaders('GET', '/api/v1/services/github/hold') },
    });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    expect(res.statusCode).toBe(200);
    const chunks = res[Symbol.asyncIterator]();
    const first = await chunks.next();
    expect((first.value as Buffer).length).toBeGreaterThan(0);
    upstream.release.resolve();
    let total = (first.value as Buffer).length;
    for (let next = await chunks.next(); !next.done; next = await chunks.next())
      total += (next.value as Buffer).length;
    expect(total).toBe(64 * 1024 + 'done'.length);

    const download = await httpCall(url('/api/v1/services/github/download/32'), {
      headers: bearer('full-token'),
    });
    expect(download.status).toBe(200);
    expect(download.body.length).toBe(32 * MiB);
    expect(download.body[31 * MiB]).toBe(31);
  });

  test('a large POST body streams up: the service reads its first chunk before the client sent the rest', async () => {
    const req = request(url('/api/v1/services/github/repos/octo/upload'), {
      method: 'POST',
      headers: {
        ...bearer('full-token'),
        ...gatewayHeaders('POST', '/api/v1/services/github/repos/octo/upload'),
        'content-type': 'application/octet-stream',
      },
    });
    req.write(Buffer.alloc(MiB, 1));
    expect(await upstream.firstChunk.promise).toBeGreaterThan(0);
    for (let i = 0; i < 5; i += 1) req.write(Buffer.alloc(MiB, 2));
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    expect(res.statusCode).toBe(201);
    const echo = JSON.parse(Buffer.concat(chunks).toString()) as Arrival;
    expect(echo).toMatchObject({ method: 'POST', url: '/gh/repos/octo/upload', bytes: 6 * MiB });
    expect(echo.headers.authorization).toBe(`Bearer ${secrets.github}`);
  });

  test('each use is recorded as last_used_at, after the answer', async () => {
    const tokenOf = async () =>
      (await stack.operator.listTokens(owner)).find((token) => token.service === 'slack');
    expect((await tokenOf())?.lastUsedAt).toBeNull();
    const answer = await httpCall(url('/api/v1/services/slack/conversations.list'), {
      headers: bearer('full-token'),
    });
    expect(answer.status).toBe(201);
    expect(lastArrival().url).toBe('/slack/conversations.list');
    await eventually(async () => (await tokenOf())?.lastUsedAt !== null, {
      what: 'the use is recorded',
      timeoutMs: 5_000,
    });
    expect((await tokenOf())?.lastUsedAt).toEqual(expect.any(String));
  });
});

describe('refusals', () => {
  test('no token: 401 with the challenge naming the scope; an inactive token or another audience: 401 invalid_token', async () => {
    const missing = await httpCall(url('/api/v1/services/github/user'));
    await expectError(missing, 401, 'AUTHENTICATION_REQUIRED');
    expect(missing.headers['www-authenticate']).toBe(
      'Bearer resource_metadata="http://gateway.test/.well-known/oauth-protected-resource/api/v1", scope="services:github:user:read"',
    );
    for (const token of ['revoked-or-unknown-token', 'other-audience-token']) {
      const refused = await httpCall(url('/api/v1/services/github/user'), {
        headers: { ...bearer(token), 'pag-account-id': owner, 'pag-scopes': 'full' },
      });
      await expectError(refused, 401, 'INVALID_TOKEN');
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    expect(upstream.arrivals.some((arrival) => arrival.url === '/gh/user')).toBe(false);
  });

  test('a token of ours with a flipped tag character: 401 invalid_token without introspection', async () => {
    const tags = new TokenTags([TEST_TOKEN_TAG_KEY]);
    const token = tags.mint('dashboard');
    const forged = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
    stack.auth.issue(token, { accountId: owner, scopes: ['full'], audience: API_AUDIENCE });
    stack.auth.issue(forged, { accountId: owner, scopes: ['full'], audience: API_AUDIENCE });
    const before = stack.auth.introspections;
    await httpCall(url('/api/v1/services/github/user?tagged'), { headers: bearer(token) });
    expect(lastArrival().url).toBe('/gh/user?tagged');
    expect(stack.auth.introspections).toBe(before + 1);
    const refused = await httpCall(url('/api/v1/services/github/user'), { headers: bearer(forged) });
    await expectError(refused, 401, 'INVALID_TOKEN');
    expect(stack.auth.introspections).toBe(before + 1);
  });

  test('a scope that does not cover the call: 403 naming the scope needed', async () => {
    const write = await httpCall(url('/api/v1/services/github/repos/octo/issues'), {
      method: 'POST',
      headers: bearer('github-read-token'),
      body: '{}',
    });
    const error = await expectError(write, 403, 'INSUFFICIENT_SCOPE');
    expect(error.message).toContain('services:github:repos:write');
    expect(write.headers['www-authenticate']).toContain('scope="services:github:repos:write"');

    const narrow = await httpCall(url('/api/v1/services/github/user'), {
      headers: bearer('repos-read-token'),
    });
    await expectError(narrow, 403, 'INSUFFICIENT_SCOPE');
    const allowed = await httpCall(url('/api/v1/services/github/repos/octo/x'), {
      headers: bearer('repos-read-token'),
    });
    expect(allowed.status).toBe(201);
  });

  test("a `read` token: Slack's write methods by GET are 403 and never sent; its read methods pass", async () => {
    const before = upstream.arrivals.length;
    for (const path of ['chat.postMessage?channel=C0123&text=hi', 'chat.delete?channel=C0123&ts=1.2']) {
      const refused = await httpCall(url(`/api/v1/services/slack/${path}`), {
        headers: bearer('read-token'),
      });
      const error = await expectError(refused, 403, 'INSUFFICIENT_SCOPE');
      expect(error.message).toContain('services:slack:write');
    }
    expect(upstream.arrivals.length).toBe(before);
    const read = await httpCall(url('/api/v1/services/slack/conversations.list?limit=1'), {
      headers: bearer('read-token'),
    });
    expect(read.status).toBe(201);
    expect(lastArrival()).toMatchObject({ method: 'GET', url: '/slack/conversations.list?limit=1' });
  });

  test('a method override in the query, or a body on GET: 400, nothing sent', async () => {
    const before = upstream.arrivals.length;
    for (const query of ['_method=DELETE', '%5FMETHOD=delete', 'x-http-method-override=PUT']) {
      const refused = await httpCall(url(`/api/v1/services/github/repos/octo/x?${query}`), {
        headers: bearer('full-token'),
      });
      await expectError(refused, 400, 'METHOD_OVERRIDE_REFUSED');
    }
    // Node's client frames a GET body only when told how (Content-Length or chunked).
    const body = '{"state":"closed"}';
    for (const framing of [{ 'content-length': String(body.length) }, { 'transfer-encoding': 'chunked' }]) {
      const withBody = await httpCall(url('/api/v1/services/github/repos/octo/x'), {
        headers: { ...bearer('full-token'), 'content-type': 'application/json', ...framing },
        body,
      });
      await expectError(withBody, 400, 'BODY_NOT_ALLOWED');
    }
    expect(upstream.arrivals.length).toBe(before);
  });

  test('an unknown service: 404', async () => {
    const error = await expectError(
      await httpCall(url('/api/v1/services/nowhere/anything'), { headers: bearer('full-token') }),
      404,
      'NOT_FOUND',
    );
    expect(error.hint).toContain('/api/v1/connectors');
  });

  test("a service the caller's account has not connected: the owner must connect it", async () => {
    const before = upstream.arrivals.length;
    const answer = await httpCall(url('/api/v1/services/github/user'), {
      headers: { ...bearer('stranger-token'), 'x-request-id': 'req-nc' },
    });
    const error = await expectError(answer, 409, 'SERVICE_NOT_CONNECTED');
    expect(error.message).toBe('GitHub is not connected to this account.');
    expect(error.hint).toContain('The owner must connect GitHub (github)');
    expect(error.requestId).toBe('req-nc');
    expect(upstream.arrivals.length).toBe(before);
  });

  test('a connection whose tokens all expired: the owner must reconnect, and it is listed as expired', async () => {
    const account = randomUUID();
    stack.auth.issue('expiring-token', { accountId: account, scopes: ['full'], audience: API_AUDIENCE });
    await stack.operator.storeApiKeyConnection({
      accountId: account,
      service: 'github',
      label: 'old',
      value: 'v',
    });
    const db = createPrismaClient(PrismaClient, {
      databaseUrl: stack.postgres.url,
      schema: proxyDatabase.schema,
    });
    try {
      await db.vaultToken.updateMany({
        where: { accountId: account },
        data: { expiresAt: new Date(Date.now() - 1000) },
      });
    } finally {
      await db.$disconnect();
    }
    const error = await expectError(
      await httpCall(url('/api/v1/services/github/user'), { headers: bearer('expiring-token') }),
      409,
      'SERVICE_NOT_CONNECTED',
    );
    expect(error.hint).toContain('reconnect');
    const statusOf = async () => (await stack.operator.listConnections(account))[0]?.status;
    await eventually(async () => (await statusOf()) === 'expired', {
      what: 'the connection is marked expired',
      timeoutMs: 5_000,
    });
    expect(await statusOf()).toBe('expired');
  });

  test('a body declared over BODY_LIMIT_BYTES: 413 before anything is sent', async () => {
    const before = upstream.arrivals.length;
    const req = request(url('/api/v1/services/github/repos/octo/upload'), {
      method: 'POST',
      headers: {
        ...bearer('full-token'),
        ...gatewayHeaders('POST', '/api/v1/services/github/repos/octo/upload'),
        'content-length': String(BODY_LIMIT + 1),
      },
    });
    req.on('error', () => {});
    req.flushHeaders();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    req.destroy();
    expect(res.statusCode).toBe(413);
    expect(ErrorBody.parse(JSON.parse(Buffer.concat(chunks).toString())).error.code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(upstream.arrivals.length).toBe(before);
  });

  test('a streamed body that grows over BODY_LIMIT_BYTES is cut off with 413', async () => {
    const req = request(url('/api/v1/services/github/repos/octo/big'), {
      method: 'POST',
      headers: {
        ...bearer('full-token'),
        ...gatewayHeaders('POST', '/api/v1/services/github/repos/octo/big'),
      },
    });
    req.on('error', () => {});
    const response = once(req, 'response') as Promise<[IncomingMessage]>;
    for (let i = 0; i <= BODY_LIMIT / MiB; i += 1) req.write(Buffer.alloc(MiB, 3));
    req.end();
    const [res] = await response;
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    expect(res.statusCode).toBe(413);
    expect(ErrorBody.parse(JSON.parse(Buffer.concat(chunks).toString())).error.code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
  });

  test('paths other than the proxied calls: 404 ROUTE_NOT_FOUND', async () => {
    for (const path of ['/api/v1/services', '/api/v1/connectors', '/elsewhere']) {
      await expectError(await httpCall(url(path), { headers: bearer('full-token') }), 404, 'ROUTE_NOT_FOUND');
    }
  });
});

describe('upstream failures', () => {
  test('a service that cannot be reached: 502 naming it', async () => {
    const error = await expectError(
      await httpCall(url('/api/v1/services/notion/pages/1'), { headers: bearer('full-token') }),
      502,
      'UPSTREAM_ERROR',
    );
    expect(error.message).toBe('Notion could not be reached or broke off the answer.');
  });

  test('a service slower than UPSTREAM_TIMEOUT_MS to answer: 504', async () => {
    const impatient = await stack.startAnother({ UPSTREAM_TIMEOUT_MS: '300' });
    upstream.release = Promise.withResolvers<void>();
    const started = Date.now();
    const error = await expectError(
      await httpCall(`${impatient.url}/api/v1/services/slack/slow`, { headers: bearer('full-token') }),
      504,
      'UPSTREAM_TIMEOUT',
    );
    upstream.release.resolve();
    expect(error.message).toBe('Slack did not start its answer within 300 ms.');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  test("the service's own 429: 429 UPSTREAM_RATE_LIMITED with its Retry-After, seconds or a date, capped", async () => {
    const rateLimited = async (after: string | null) => {
      const query = after === null ? '' : `?after=${encodeURIComponent(after)}`;
      const answer = await httpCall(url(`/api/v1/services/github/rate-limited${query}`), {
        headers: bearer('full-token'),
      });
      const error = await expectError(answer, 429, 'UPSTREAM_RATE_LIMITED');
      expect(error.hint).toMatch(/not this gateway's/);
      expect(answer.body.toString()).not.toContain('API rate limit exceeded');
      return Number(answer.headers['retry-after']);
    };
    expect(await rateLimited('7')).toBe(7);
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    expect(await rateLimited(inTwoMinutes)).toBeGreaterThanOrEqual(118);
    expect(await rateLimited(inTwoMinutes)).toBeLessThanOrEqual(120);
    expect(await rateLimited('999999')).toBe(3600);
    expect(await rateLimited(null)).toBe(60);
    expect(lastArrival().url).toBe('/gh/rate-limited');
  });

  describe('an answer over PROXY_MAX_RESPONSE_BYTES', () => {
    let bounded: Awaited<ReturnType<TestProxy['startAnother']>>;
    beforeAll(async () => {
      bounded = await stack.startAnother({ PROXY_MAX_RESPONSE_BYTES: String(64 * 1024) });
    });
    afterAll(async () => {
      await bounded?.close();
    });

    test('with a Content-Length over it: 502 UPSTREAM_RESPONSE_TOO_LARGE before any of it is sent', async () => {
      const answer = await httpCall(`${bounded.url}/api/v1/services/github/sized/${64 * 1024 + 1}`, {
        headers: bearer('full-token'),
      });
      const error = await expectError(answer, 502, 'UPSTREAM_RESPONSE_TOO_LARGE');
      expect(error.message).toBe("GitHub's answer exceeds the limit of 65536 bytes.");
      expect(answer.body.toString()).not.toContain('xxxx');
      const fits = await httpCall(`${bounded.url}/api/v1/services/github/sized/${64 * 1024}`, {
        headers: bearer('full-token'),
      });
      expect(fits.status).toBe(200);
      expect(fits.body).toHaveLength(64 * 1024);
    });

    test('streamed without a length: cut once past it, the client sees a broken answer', async () => {
      const attempt = httpCall(`${bounded.url}/api/v1/services/github/download/2`, {
        headers: bearer('full-token'),
      });
      await expect(attempt).rejects.toThrow(/aborted|socket hang up|ECONNRESET/);
    });
  });
});

describe('the gateway is the only way in', () => {
  const USER = '/api/v1/services/github/user';

  test('a request straight at the proxy port without the gateway proof: 403 GATEWAY_ONLY, nothing goes upstream', async () => {
    const before = upstream.arrivals.length;
    for (let i = 0; i < 3; i += 1) {
      const error = await expectError(
        await httpCall(url(USER), { headers: bearer('full-token'), direct: true }),
        403,
        'GATEWAY_ONLY',
      );
      expect(error.message).toContain('missing');
    }
    expect(upstream.arrivals.length).toBe(before);
  });

  test('a captured proof is worth nothing on another path or method, with another request id, or when stale', async () => {
    const before = upstream.arrivals.length;
    const captured = gatewayHeaders('GET', USER, { requestId: 'req-captured' });
    const replays = [
      { path: '/api/v1/services/github/repos/octo/x', method: 'GET', headers: captured },
      { path: USER, method: 'DELETE', headers: captured },
      { path: USER, method: 'GET', headers: { ...captured, 'x-request-id': 'req-other' } },
      {
        path: USER,
        method: 'GET',
        headers: {
          'x-request-id': 'req-old',
          'pag-gateway-proof': signGatewayRequest(
            TEST_GATEWAY_SECRET,
            { method: 'GET', path: USER, requestId: 'req-old' },
            Date.now() - (MAX_SKEW_SECONDS + 5) * 1000,
          ),
        },
      },
      {
        path: USER,
        method: 'GET',
        headers: gatewayHeaders('GET', USER, { secret: 'another-deployment-secret-0123456789ab' }),
      },
    ];
    for (const { path, method, headers } of replays) {
      await expectError(
        await httpCall(url(path), { method, headers: { ...bearer('full-token'), ...headers }, direct: true }),
        403,
        'GATEWAY_ONLY',
      );
    }
    expect(upstream.arrivals.length).toBe(before);
    // The same call signed for what it is goes through.
    expect((await httpCall(url(USER), { headers: bearer('full-token') })).status).toBe(201);
    expect(upstream.arrivals.length).toBe(before + 1);
  });
});
