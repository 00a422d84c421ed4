/**
 * A connected service end to end on the embedded stack: the gateway forwards
 * /api/v1/services/github/* to the proxy service, which introspects the agent's token itself and
 * calls the connector (here a local stand-in, CONNECTOR_BASE_URLS) with the owner's credential,
 * stored by `pag connection add` from standard input. Before that the call is 409
 * SERVICE_NOT_CONNECTED; after it, the context lists the service and the answer streams back.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { GatewayContext } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { FakeUpstream } from '../services/proxy/test/support/fake-upstream.ts';

const OWNER = { email: 'carol@connected.test', password: 'carol long password' };
const KEY = 'ghp_connectedServiceTestKey0123456789';

let stack: StackProcess;
let github: FakeUpstream;
let token: string;
let stdin = '';

beforeAll(async () => {
  github = await FakeUpstream.start();
  stack = await startStackProcess({
    env: { CONNECTOR_BASE_URLS: JSON.stringify({ github: github.url }) },
  });
  expect((await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password)).code).toBe(0);
  const made = await pag(
    'token',
    'create',
    '--owner',
    OWNER.email,
    '--name',
    'repo-reader',
    '--scopes',
    'services:github:read',
  );
  token = made.out.at(-1) ?? '';
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await github?.[Symbol.asyncDispose]();
});

function pag(...argv: string[]) {
  return pagCommand(
    () => stack.dataDir,
    () => stdin,
  )(...argv);
}

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${stack.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}` } });

test('not connected: 409 SERVICE_NOT_CONNECTED telling the agent the owner must connect it', async () => {
  const response = await call('/api/v1/services/github/user');
  expect(response.status).toBe(409);
  const { error } = (await response.json()) as { error: { code: string; hint: string } };
  expect(error.code).toBe('SERVICE_NOT_CONNECTED');
  expect(error.hint).toContain('connect');
  expect(github.arrivals).toHaveLength(0);
});

test('connected with `pag connection add`: calls carry the owner’s key, never the agent’s token', async () => {
  stdin = `${KEY}\n`;
  const added = await pag(
    'connection',
    'add',
    '--owner',
    OWNER.email,
    '--service',
    'github',
    '--label',
    'ci',
  );
  stdin = '';
  expect(added).toMatchObject({ code: 0 });
  expect(added.out.join('\n')).not.toContain(KEY);

  const response = await call('/api/v1/services/github/user/repos?per_page=5');
  expect(response.status).toBe(201);
  const arrival = (await response.json()) as { url: string; headers: Record<string, string> };
  expect(arrival.url).toBe('/user/repos?per_page=5');
  expect(arrival.headers.authorization).toBe(`Bearer ${KEY}`);
  expect(JSON.stringify(arrival.headers)).not.toContain(token);
  // The gateway's headers, not the third party's cookie or CORS grant.
  expect(response.headers.get('set-cookie')).toBeNull();
  expect(response.headers.get('access-control-allow-origin')).toBeNull();
  expect(response.headers.get('cache-control')).toBe('no-store');

  const context = GatewayContext.parse(await (await call('/api/v1/gateway/context')).json());
  expect(context.services).toEqual([
    { name: 'github', displayName: 'GitHub', status: 'connected', connectedAt: expect.any(String) },
  ]);
  const listed = await pag('connection', 'list', '--owner', OWNER.email);
  expect(listed.out.join('\n')).toMatch(/^github\tconnected/m);
  expect(listed.out.join('\n')).not.toContain(KEY);
});

test('writing needs the write scope; the key must come on standard input', async () => {
  const post = await call('/api/v1/services/github/user/repos', { method: 'POST', body: '{}' });
  expect(post.status).toBe(403);
  expect(((await post.json()) as { error: { code: string } }).error.code).toBe('INSUFFICIENT_SCOPE');
  const empty = await pag('connection', 'add', '--owner', OWNER.email, '--service', 'github', '--label', 'x');
  expect(empty.code).toBe(2);
  expect(empty.err.join('\n')).toContain('standard input');
});
