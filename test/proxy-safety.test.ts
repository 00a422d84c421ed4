/**
 * The proxied path end to end on the embedded stack (gateway → proxy → a stand-in provider on
 * loopback that counts what reaches it), for what an agent must never get through and what the
 * vault must never give away:
 * - bad input: traversal (plain and percent-encoded), absolute URLs in the path, an unknown or
 *   unconnected service, an oversized body, header injection: each a clear 4xx with the error
 *   body, and nothing reaches the provider;
 * - the provider's own 429 reaches the agent as 429 UPSTREAM_RATE_LIMITED with its Retry-After;
 * - `pag vault rotate-key` while the stack serves: calls keep working, `pag vault status` says
 *   the old key wraps nothing any more;
 * - after all of that (errors in the proxy path included): no stored credential appears in any
 *   column of any row of any table of the stack's database (audit records included), nor in
 *   anything the stack printed.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { AddressInfo, Server } from 'node:net';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ErrorBody } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { countTables, findInTables } from '../packages/kit/src/testing/mod.ts';
import { runCli } from '../packages/stack/src/cli/run-cli.ts';
import { FakeUpstream } from '../services/proxy/test/support/fake-upstream.ts';

const OWNER = { email: 'erin@safety.test', password: 'erin long password' };
const KEY = `ghp_safetyTestKey_${randomBytes(8).toString('hex')}`;
/** Notion's credential; "Notion" resets every connection: a call fails after it was decrypted. */
const NOTION_KEY = `ntn_safetyTestKey_${randomBytes(8).toString('hex')}`;
const BODY_LIMIT = 64 * 1024;
const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');
/** The stack's ring: both keys, k1 active until the rotation. */
const VAULT = { VAULT_KEYS: `k1:${k1},k2:${k2}`, VAULT_ACTIVE_KEY_ID: 'k1' };

let stack: StackProcess;
let github: FakeUpstream;
let resetting: Server;
let token: string;

async function pag(env: Record<string, string>, stdin: string, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    { DATA_DIR: stack.dataDir, LOG_LEVEL: 'warn', ...env },
    { out: (text) => out.push(text), err: (text) => err.push(text), input: async () => stdin },
  );
  return { code, out, err };
}

beforeAll(async () => {
  github = await FakeUpstream.start();
  // Held, not a port found free: another test's server could take that meanwhile.
  resetting = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
  stack = await startStackProcess({
    env: {
      CONNECTOR_BASE_URLS: JSON.stringify({
        github: github.url,
        notion: `http://127.0.0.1:${(resetting.address() as AddressInfo).port}`,
      }),
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      LOG_LEVEL: 'info',
      ...VAULT,
    },
  });
  expect(
    (await pag(VAULT, '', 'owner', 'create', '--email', OWNER.email, '--password', OWNER.password)).code,
  ).toBe(0);
  const made = await pag(
    VAULT,
    '',
    'token',
    'create',
    '--owner',
    OWNER.email,
    '--name',
    'safety',
    '--scopes',
    'full',
  );
  expect(made.code).toBe(0);
  token = made.out.at(-1) ?? '';
  const notion = await pag(
    VAULT,
    `${NOTION_KEY}\n`,
    'connection',
    'add',
    '--owner',
    OWNER.email,
    '--service',
    'notion',
    '--label',
    'ws',
  );
  expect(notion.code).toBe(0);
  const added = await pag(
    VAULT,
    `${KEY}\n`,
    'connection',
    'add',
    '--owner',
    OWNER.email,
    '--service',
    'github',
    '--label',
    'main',
  );
  expect(added.code).toBe(0);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await github?.[Symbol.asyncDispose]();
  await new Promise((resolve) => (resetting ? resetting.close(resolve) : resolve(undefined)));
});

/** One request as written on the wire (no client library to tidy the target or the headers). */
function raw(lines: string[], body = ''): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(stack.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`${lines.join('\r\n')}\r\nConnection: close\r\n\r\n${body}`);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

const get = (target: string, headers: string[] = []) =>
  raw([
    `GET ${target} HTTP/1.1`,
    `Host: ${new URL(stack.url).host}`,
    `Authorization: Bearer ${token}`,
    ...headers,
  ]);

describe('bad input through the gateway: a clear 4xx, and nothing reaches the provider', () => {
  test('the connection works (the control)', async () => {
    const before = github.arrivals.length;
    expect((await get('/api/v1/services/github/user')).status).toBe(201);
    expect(github.arrivals.length).toBe(before + 1);
  });

  test.each([
    ['traversal', '/api/v1/services/github/../../v1/vault/tokens'],
    ['traversal out of the service', '/api/v1/services/github/repos/../../slack/chat.postMessage'],
    ['encoded traversal', '/api/v1/services/github/%2e%2e/%2e%2e/api/v1/vault/tokens'],
    ['encoded traversal, mixed case', '/api/v1/services/github/repos/%2E%2E/%2e./user'],
    ['an encoded slash', '/api/v1/services/github/..%2f..%2fuser'],
    ['an encoded backslash', '/api/v1/services/github/..%5c..%5cuser'],
    ['an absolute URL in the path', '/api/v1/services/github/https://evil.example/steal'],
    ['a protocol-relative URL in the path', '/api/v1/services/github//evil.example/steal'],
    ['an encoded absolute URL in the path', '/api/v1/services/github/https%3A%2F%2Fevil.example%2Fsteal'],
    ['an unknown service', '/api/v1/services/myspace/user'],
    ['a service not connected', '/api/v1/services/figma/me'],
    ['an encoded line break in the path', '/api/v1/services/github/user%0d%0aX-Injected:%201'],
  ])('%s: %s', async (_what, target) => {
    const before = github.arrivals.length;
    const answer = await get(target);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(ErrorBody.safeParse(JSON.parse(answer.body)).success).toBe(true);
    expect(github.arrivals.length).toBe(before);
  });

  test('an absolute-form request target naming another host', async () => {
    const before = github.arrivals.length;
    const answer = await get('http://evil.example/api/v1/services/github/user');
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(github.arrivals.length).toBe(before);
  });

  test('header injection: a line break inside a header value is refused before anything runs', async () => {
    const before = github.arrivals.length;
    for (const header of ['X-Note: a\rAuthorization: Bearer other', 'X-Note: a\nHost: evil.example']) {
      const answer = await get('/api/v1/services/github/user', [header]);
      expect(answer.status).toBe(400);
    }
    expect(github.arrivals.length).toBe(before);
  });

  test('a body declared over BODY_LIMIT_BYTES: 413', async () => {
    const before = github.arrivals.length;
    const answer = await raw(
      [
        'POST /api/v1/services/github/repos/octo/issues HTTP/1.1',
        `Host: ${new URL(stack.url).host}`,
        `Authorization: Bearer ${token}`,
        'Content-Type: application/json',
        `Content-Length: ${BODY_LIMIT * 4}`,
      ],
      '{}',
    );
    expect(answer.status).toBe(413);
    expect(github.arrivals.length).toBe(before);
  });
});

test('a provider that breaks off: 502 UPSTREAM_ERROR, its credential in no answer', async () => {
  const response = await fetch(`${stack.url}/api/v1/services/notion/pages/1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(502);
  const text = await response.text();
  expect(ErrorBody.parse(JSON.parse(text)).error.code).toBe('UPSTREAM_ERROR');
  expect(text).not.toContain(NOTION_KEY);
});

test("the provider's 429: 429 UPSTREAM_RATE_LIMITED with its Retry-After, through the gateway", async () => {
  const response = await fetch(`${stack.url}/api/v1/services/github/rate-limited?after=30`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(429);
  expect(response.headers.get('retry-after')).toBe('30');
  expect(ErrorBody.parse(await response.json()).error.code).toBe('UPSTREAM_RATE_LIMITED');
});

test('`pag vault rotate-key` while the stack serves: calls keep working, the old key is then retirable', async () => {
  const rotated = { ...VAULT, VAULT_ACTIVE_KEY_ID: 'k2' };
  const before = await pag(rotated, '', 'vault', 'status');
  expect(before.out.join('\n')).toMatch(/^k1\t2 credentials$/m);
  const rotation = await pag(rotated, '', 'vault', 'rotate-key');
  expect(rotation.code).toBe(0);
  expect(rotation.out.join('\n')).toContain('rewrapped 2 credentials under k2');
  expect(rotation.out.join('\n')).toContain('key k1 wraps nothing any more: it can be retired.');
  // The stack's own ring holds both keys: the rotated credential is read under k2.
  const response = await fetch(`${stack.url}/api/v1/services/github/user`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(201);
  expect(((await response.json()) as { headers: Record<string, string> }).headers.authorization).toBe(
    `Bearer ${KEY}`,
  );
  const after = await pag(rotated, '', 'vault', 'status');
  expect(after.out.join('\n')).toMatch(/^k2\t2 credentials\t\(active\)$/m);
});

test('no stored credential in any column of any row of any table, nor in anything the stack printed', async () => {
  const { databaseUrl } = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')) as {
    databaseUrl: string;
  };
  // Every service's schema: auth, gateway, brain, trigger, proxy, audit.
  expect(await countTables(databaseUrl)).toBeGreaterThan(10);
  expect(await findInTables(databaseUrl, [KEY, NOTION_KEY])).toEqual([]);
  for (const secret of [KEY, NOTION_KEY]) {
    expect(stack.output()).not.toContain(secret);
    expect(stack.errorOutput()).not.toContain(secret);
  }
  // The failed call was logged (so the scan looked at a line about it).
  expect(stack.output()).toContain('connected service call failed');
  // The calls above were audited (so the scan looked at rows that describe them).
  const audit = await pag(VAULT, '', 'audit', 'list', '--owner', OWNER.email);
  expect(audit.out.join('\n')).toContain('/api/v1/services/github/');
});
