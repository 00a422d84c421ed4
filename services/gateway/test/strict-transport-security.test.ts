/**
 * Strict-Transport-Security: on an https PUBLIC_URL every answer of the public origin carries it
 * exactly once (the gateway's own answers, its errors, and the auth service's answers it
 * forwards); on an http PUBLIC_URL none does (browsers ignore it there).
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { FakeAuthServer } from '@pag/kit/testing';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

let auth: FakeAuthServer;
let https: TestGateway;
let http: TestGateway;
beforeAll(async () => {
  auth = await FakeAuthServer.start();
  https = await startTestGateway({ PUBLIC_URL: 'https://gw.example', AUTH_URL: auth.url });
  http = await startTestGateway({ PUBLIC_URL: 'http://gw.example', AUTH_URL: auth.url });
});
afterAll(async () => {
  await https?.[Symbol.asyncDispose]();
  await http?.[Symbol.asyncDispose]();
  await auth?.[Symbol.asyncDispose]();
});

/** Every Strict-Transport-Security header of the answer, as sent (not merged). */
function hstsHeaders(base: string, path: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, (res) => {
      res.resume();
      const values: string[] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2)
        if (res.rawHeaders[i]?.toLowerCase() === 'strict-transport-security')
          values.push(res.rawHeaders[i + 1] ?? '');
      res.on('end', () => resolve(values));
    });
    req.on('error', reject);
    req.end();
  });
}

const PATHS = [
  ['a document of the gateway', '/api/v1'],
  ['a route that needs a token, without one', '/api/v1/context'],
  ['an unknown route', '/api/v1/nothing-here'],
  ['a page of the auth service', '/dashboard/tokens'],
  ['an OAuth endpoint of the auth service', '/oauth/register'],
];

describe('PUBLIC_URL https', () => {
  test.each(PATHS)('%s (%s): once, one year', async (_what, path) => {
    expect(await hstsHeaders(https.url, path)).toEqual(['max-age=31536000']);
  });
});

describe('PUBLIC_URL http', () => {
  test.each(PATHS)('%s (%s): none', async (_what, path) => {
    expect(await hstsHeaders(http.url, path)).toEqual([]);
  });
});
