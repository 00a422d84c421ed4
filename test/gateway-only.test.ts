/**
 * The gateway is the only way in (issue 9, point 3): on the embedded stack, an agent whose token
 * allows one request a day is held to it through the gateway, and reaching the proxy's or the
 * auth service's internal port directly gets it nothing: 403 GATEWAY_ONLY, and the connected
 * service (a local stand-in) never hears of it. Resource servers still introspect directly.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { FakeUpstream } from '../services/proxy/test/support/fake-upstream.ts';

const OWNER = { email: 'dana@gateway-only.test', password: 'dana long password' };
const KEY = 'ghp_gatewayOnlyTestKey0123456789abcdef';
const USER_PATH = '/api/v1/services/github/user';

let stack: StackProcess;
let github: FakeUpstream;
let token: string;
let internal: { authUrl: string; proxyUrl: string };
let stdin = '';

function pag(...argv: string[]) {
  return pagCommand(
    () => stack.dataDir,
    () => stdin,
  )(...argv);
}

beforeAll(async () => {
  github = await FakeUpstream.start();
  stack = await startStackProcess({ env: { CONNECTOR_BASE_URLS: JSON.stringify({ github: github.url }) } });
  expect((await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password)).code).toBe(0);
  stdin = `${KEY}\n`;
  const added = await pag('connection', 'add', '--owner', OWNER.email, '--service', 'github', '--label', 'x');
  stdin = '';
  expect(added.code).toBe(0);
  const made = await pag(
    'token',
    'create',
    ...['--owner', OWNER.email, '--name', 'one-a-day', '--scopes', 'services:github:read', '--daily', '1'],
  );
  expect(made.code).toBe(0);
  token = made.out.at(-1) ?? '';
  internal = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')) as typeof internal;
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  await github?.[Symbol.asyncDispose]();
});

const bearer = { authorization: () => `Bearer ${token}` };

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe('the proxy', () => {
  test('reached directly: 403 GATEWAY_ONLY every time, and nothing reaches the connected service', async () => {
    for (let i = 0; i < 5; i += 1) {
      const response = await fetch(`${internal.proxyUrl}${USER_PATH}`, {
        headers: { authorization: bearer.authorization() },
      });
      expect(response.status).toBe(403);
      expect(await errorCode(response)).toBe('GATEWAY_ONLY');
    }
    expect(github.arrivals).toHaveLength(0);
  });

  test("through the gateway the agent's daily limit holds: one call, then 429", async () => {
    const first = await fetch(`${stack.url}${USER_PATH}`, {
      headers: { authorization: bearer.authorization() },
    });
    expect(first.status).toBe(201);
    const second = await fetch(`${stack.url}${USER_PATH}`, {
      headers: { authorization: bearer.authorization() },
    });
    expect(second.status).toBe(429);
    expect(await errorCode(second)).toBe('USAGE_LIMIT_EXCEEDED');
    expect(github.arrivals).toHaveLength(1);
  });
});

describe('the auth service', () => {
  const paths: Array<[method: string, path: string]> = [
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/login'],
    ['GET', '/signup'],
    ['GET', '/dashboard'],
    ['GET', '/auth.md'],
    ['POST', '/oauth/register'],
    ['POST', '/oauth/token'],
  ];

  test.each(paths)(
    '%s %s reached directly: 403 GATEWAY_ONLY, whatever X-Forwarded-For claims',
    async (method, path) => {
      const response = await fetch(`${internal.authUrl}${path}`, {
        method,
        headers: { 'x-forwarded-for': '203.0.113.7', 'content-type': 'application/json' },
        ...(method === 'POST' && { body: '{}' }),
        redirect: 'manual',
      });
      expect(response.status).toBe(403);
      expect(await errorCode(response)).toBe('GATEWAY_ONLY');
    },
  );

  test('the same paths through the gateway answer as before', async () => {
    expect((await fetch(`${stack.url}/.well-known/oauth-authorization-server`)).status).toBe(200);
    expect((await fetch(`${stack.url}/login`)).status).toBe(200);
    expect((await fetch(`${stack.url}/auth.md`)).status).toBe(200);
  });

  test('introspection stays open to resource servers with their own credentials', async () => {
    const secrets = JSON.parse(await readFile(join(stack.dataDir, 'secrets.json'), 'utf8')) as {
      introspectionClientId: string;
      introspectionClientSecret: string;
    };
    const basic = Buffer.from(
      `${secrets.introspectionClientId}:${secrets.introspectionClientSecret}`,
    ).toString('base64');
    const response = await fetch(`${internal.authUrl}/oauth/introspect`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ active: true, scope: 'services:github:read' });
  });
});
