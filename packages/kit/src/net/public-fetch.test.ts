/**
 * fetchPublic against servers this test runs on loopback (allowed explicitly, as in the auth
 * service's tests), and the refusals that happen before any connection.
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { fetchPublic, PublicFetchError } from './public-fetch.ts';

const LIMITS = { maxBytes: 1024, timeoutMs: 2_000 };

let server: Server;
let base: string;
/** Requests the server has had, by path. */
const seen: string[] = [];
const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/ok': (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}'),
  '/big-declared': (_req, res) => res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000)),
  '/big-streamed': (_req, res) => {
    res.writeHead(200);
    for (let i = 0; i < 10; i += 1) res.write('y'.repeat(500));
    res.end();
  },
  '/redirect': (_req, res) => res.writeHead(302, { location: '/ok' }).end(),
  // Never answers: only the time limit ends the request.
  '/slow': () => {},
};

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    (routes[req.url ?? ''] ?? ((_q, r) => r.writeHead(404).end()))(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function refusal(promise: Promise<unknown>): Promise<PublicFetchError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PublicFetchError);
  return error as PublicFetchError;
}

describe('fetchPublic', () => {
  test('fetches a small document from loopback when loopback is allowed', async () => {
    const answer = await fetchPublic(`${base}/ok`, { ...LIMITS, allowLoopback: true });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual({ a: 1 });
  });

  test('refuses http, and loopback, unless loopback is allowed; without connecting', async () => {
    const before = seen.length;
    expect((await refusal(fetchPublic(`${base}/ok`, LIMITS))).message).toBe('the URL must use https');
    const https = await refusal(fetchPublic('https://127.0.0.1/ok', LIMITS));
    expect(https.message).toBe('127.0.0.1 is not a public address');
    expect(seen.length).toBe(before);
  });

  test.each([
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/doc',
    'https://[fd00:ec2::254]/doc',
    'https://[::ffff:192.168.0.1]/doc',
  ])('refuses %s (a private address literal) even with loopback allowed', async (url) => {
    const error = await refusal(fetchPublic(url, { ...LIMITS, allowLoopback: true }));
    expect(error.message).toMatch(/is not a public address$/);
    expect(error.unreachable).toBe(false);
  });

  test('refuses a host name that resolves to a private address, at the lookup it connects with', async () => {
    const error = await refusal(fetchPublic('https://localhost/doc', LIMITS));
    expect(error.message).toMatch(
      /^localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/,
    );
  });

  test('refuses credentials in the URL', async () => {
    expect((await refusal(fetchPublic('https://a:b@example.com/doc', LIMITS))).message).toBe(
      'the URL must not contain credentials',
    );
  });

  test('does not follow a redirect', async () => {
    const error = await refusal(fetchPublic(`${base}/redirect`, { ...LIMITS, allowLoopback: true }));
    expect(error.message).toBe('it answered 302 (a redirect, which is not followed)');
    expect(seen.filter((path) => path === '/ok').length).toBe(1);
  });

  test.each(['/big-declared', '/big-streamed'])('stops reading past the size limit (%s)', async (path) => {
    const error = await refusal(fetchPublic(`${base}${path}`, { ...LIMITS, allowLoopback: true }));
    expect(error.message).toBe('it is larger than 1024 bytes');
    expect(error.unreachable).toBe(false);
  });

  test('gives up at the time limit, as a transient failure', async () => {
    const error = await refusal(
      fetchPublic(`${base}/slow`, { ...LIMITS, timeoutMs: 200, allowLoopback: true }),
    );
    expect(error.message).toBe('no complete answer within 200 ms');
    expect(error.unreachable).toBe(true);
  });
});
