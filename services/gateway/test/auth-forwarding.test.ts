import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ErrorBody, GATEWAY_PROOF_HEADER } from '@pag/contracts';
import { signGatewayRequest, verifyGatewayRequest } from '@pag/kit';
import { FakeAuthServer, freePort, TEST_GATEWAY_SECRET } from '@pag/kit/testing';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

const PUBLIC_URL = 'https://gw.example';
/** Only the timeout test's own gateway waits this little: every other test's auth service answers. */
const SHORT_DISPATCH_TIMEOUT_MS = '300';
let auth: FakeAuthServer;
let gateway: TestGateway;

beforeAll(async () => {
  auth = await FakeAuthServer.start();
  // The default dispatch timeout (10 s): a 3 MiB body or a slow first request on a loaded machine
  // is not "an auth service that does not answer in time".
  gateway = await startTestGateway({ PUBLIC_URL, AUTH_URL: auth.url });
});
afterAll(async () => {
  await gateway?.[Symbol.asyncDispose]();
  await auth?.[Symbol.asyncDispose]();
});

function lastArrival() {
  const arrival = auth.arrivals.at(-1);
  if (arrival === undefined) throw new Error('nothing reached the auth service');
  return arrival;
}

/** Sends headers fetch would refuse to set (Host) or merge, exactly as given. */
function rawGet(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${gateway.url}${path}`, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('forwarding to the auth service', () => {
  test.each([
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/.well-known/oauth-protected-resource/api/v1',
    '/oauth/register',
    '/interaction/uid-1',
    '/signup',
    '/logout',
    '/dashboard',
    '/dashboard/tokens',
    '/auth.md',
  ])('%s reaches the auth service with its query string', async (path) => {
    const response = await fetch(`${gateway.url}${path}?a=1`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-upstream')).toBe('fake-auth');
    expect(await response.json()).toEqual({ path: `${path}?a=1`, bodyBytes: 0 });
  });

  test('paths outside the auth prefixes are not forwarded', async () => {
    const before = auth.arrivals.length;
    const response = await fetch(`${gateway.url}/oauthx`);
    expect(response.status).toBe(404);
    expect(auth.arrivals.length).toBe(before);
  });

  test("the gateway sets X-Forwarded-* from PUBLIC_URL and the socket; a client's own never pass", async () => {
    const status = await rawGet('/oauth/authorize', {
      host: 'evil.example',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'http',
      'x-forwarded-port': '1',
      'x-forwarded-prefix': '/evil',
      forwarded: 'for=203.0.113.9;host=evil.example;proto=http',
      'x-real-ip': '203.0.113.9',
    });
    expect(status).toBe(200);
    const { headers } = lastArrival();
    expect(headers['x-forwarded-proto']).toBe('https');
    expect(headers['x-forwarded-host']).toBe('gw.example');
    expect(headers['x-forwarded-for']).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(headers['x-forwarded-port']).toBeUndefined();
    expect(headers['x-forwarded-prefix']).toBeUndefined();
    expect(headers.forwarded).toBeUndefined();
    expect(headers['x-real-ip']).toBeUndefined();
    expect(headers.host).toBe(new URL(auth.url).host);
    expect(headers['x-request-id']).toMatch(/.+/);
  });

  test("every forwarded request carries the gateway's proof over its method, path and request id; a client's own is replaced", async () => {
    const forged = signGatewayRequest('a-guessed-secret-that-is-long-enough-0000', {
      method: 'POST',
      path: '/oauth/token?x=1',
      requestId: 'req-client',
    });
    const response = await fetch(`${gateway.url}/oauth/token?x=1`, {
      method: 'POST',
      headers: { 'x-request-id': 'req-client', [GATEWAY_PROOF_HEADER]: forged },
      body: 'grant_type=x',
    });
    expect(response.status).toBe(200);
    const { method, url, headers } = lastArrival();
    const proof = headers[GATEWAY_PROOF_HEADER];
    expect(typeof proof === 'string' && proof !== forged).toBe(true);
    const signed = { method, path: url, requestId: String(headers['x-request-id']) };
    expect(verifyGatewayRequest(TEST_GATEWAY_SECRET, signed, String(proof))).toBe('valid');
    expect(
      verifyGatewayRequest(TEST_GATEWAY_SECRET, { ...signed, path: '/oauth/register' }, String(proof)),
    ).toBe('mismatch');
  });

  test('behind a proxy named in TRUST_PROXY, the client address is the one that proxy tells', async () => {
    const behind = await startTestGateway({ PUBLIC_URL, AUTH_URL: auth.url, TRUST_PROXY: 'loopback' });
    try {
      const response = await fetch(`${behind.url}/oauth/authorize`, {
        headers: { 'x-forwarded-for': '198.51.100.23, 127.0.0.1' },
      });
      expect(response.status).toBe(200);
      expect(lastArrival().headers['x-forwarded-for']).toBe('198.51.100.23');
    } finally {
      await behind[Symbol.asyncDispose]();
    }
  });

  test('request bodies pass whole and unparsed, beyond the JSON body limit', async () => {
    const body = Buffer.alloc(3 * 1024 * 1024, 'a');
    const response = await fetch(`${gateway.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ path: '/oauth/token', bodyBytes: body.length });
  });

  test('responses stream: the first chunk arrives before the auth service has finished', async () => {
    const { promise, resolve } = Promise.withResolvers<void>();
    auth.release = promise;
    try {
      const response = await fetch(`${gateway.url}/oauth/stream`);
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(Buffer.from(first.value!).toString()).toBe('first chunk\n');
      resolve();
      let rest = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        rest += Buffer.from(chunk.value).toString();
      }
      expect(rest).toBe('last chunk\n');
    } finally {
      resolve();
      auth.release = Promise.resolve();
    }
  });

  test('redirects reach the browser unchanged, with their cookies', async () => {
    const response = await fetch(`${gateway.url}/login`, { method: 'POST', redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/interaction/abc');
    expect(response.headers.get('set-cookie')).toContain('_interaction=abc');
  });

  test('an auth service that does not answer in time is 504 with the error body', async () => {
    await using impatient = await startTestGateway({
      PUBLIC_URL,
      AUTH_URL: auth.url,
      DISPATCH_TIMEOUT_MS: SHORT_DISPATCH_TIMEOUT_MS,
    });
    const { promise, resolve } = Promise.withResolvers<void>();
    auth.release = promise;
    try {
      const response = await fetch(`${impatient.url}/oauth/slow`);
      expect(response.status).toBe(504);
      const { error } = ErrorBody.parse(await response.json());
      expect(error.code).toBe('UPSTREAM_TIMEOUT');
      expect(error.requestId).toBe(response.headers.get('x-request-id'));
    } finally {
      resolve();
      auth.release = Promise.resolve();
    }
  });
});

describe('forwarding while the auth service is down', () => {
  test('a stopped auth service is 503 SERVICE_UNAVAILABLE with the error body', async () => {
    await using down = await startTestGateway({
      PUBLIC_URL,
      AUTH_URL: `http://127.0.0.1:${await freePort()}`,
    });
    const response = await fetch(`${down.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(503);
    expect(ErrorBody.parse(await response.json()).error.code).toBe('SERVICE_UNAVAILABLE');
  });

  test('without AUTH_URL the auth paths answer 503, not 404', async () => {
    await using alone = await startTestGateway({ PUBLIC_URL });
    for (const path of ['/oauth/token', '/.well-known/oauth-authorization-server', '/auth.md', '/signup']) {
      const response = await fetch(`${alone.url}${path}`);
      expect(response.status).toBe(503);
      expect(ErrorBody.parse(await response.json()).error.code).toBe('SERVICE_UNAVAILABLE');
    }
  });
});
