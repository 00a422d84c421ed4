/**
 * A connected service end to end on the embedded stack: the gateway forwards
 * /api/v1/services/github/* to the proxy service, which introspects the agent's token itself and
 * calls the connector (here a local stand-in, CONNECTOR_BASE_URLS) with the owner's credential,
 * stored by `pag connection add` from standard input. Before that the call is 409
 * SERVICE_NOT_CONNECTED; after it, the context lists the service and the answer streams back.
 * A `read` token never writes: Slack's write methods by GET need the write scope and never reach
 * Slack. A chunked upload past the proxy's BODY_LIMIT_BYTES is 413 at the client, not 502.
 */
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ErrorBody, GatewayContext } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { FakeUpstream } from '../services/proxy/test/support/fake-upstream.ts';

const OWNER = { email: 'carol@connected.test', password: 'carol long password' };
const KEY = 'ghp_connectedServiceTestKey0123456789';
const SLACK_KEY = 'xoxb-connected-service-test';
const MiB = 1024 * 1024;
const BODY_LIMIT = MiB;

let stack: StackProcess;
let github: FakeUpstream;
let slack: FakeUpstream;
let token: string;
let readToken: string;
let writeToken: string;
let stdin = '';

beforeAll(async () => {
  github = await FakeUpstream.start();
  slack = await FakeUpstream.start();
  stack = await startStackProcess({
    env: {
      CONNECTOR_BASE_URLS: JSON.stringify({ github: github.url, slack: slack.url }),
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
    },
  });
  expect((await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password)).code).toBe(0);
  token = await createToken('repo-reader', 'services:github:read');
  readToken = await createToken('reader', 'read');
  writeToken = await createToken('repo-writer', 'services:github:write');
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await github?.[Symbol.asyncDispose]();
  await slack?.[Symbol.asyncDispose]();
});

async function createToken(name: string, scopes: string): Promise<string> {
  const made = await pag('token', 'create', '--owner', OWNER.email, '--name', name, '--scopes', scopes);
  expect(made.code).toBe(0);
  return made.out.at(-1) ?? '';
}

/** `pag connection add` for the owner, the key on standard input as an operator pipes it. */
async function connect(service: string, label: string, key: string) {
  stdin = `${key}\n`;
  try {
    return await pag('connection', 'add', '--owner', OWNER.email, '--service', service, '--label', label);
  } finally {
    stdin = '';
  }
}

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
  const added = await connect('github', 'ci', KEY);
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
    {
      name: 'github',
      displayName: 'GitHub',
      status: 'connected',
      health: 'healthy',
      connectedAt: expect.any(String),
    },
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

describe('a read-only token never writes through the proxy', () => {
  beforeAll(async () => {
    expect((await connect('slack', 'ws', SLACK_KEY)).code).toBe(0);
  });

  const slackCall = (path: string) =>
    fetch(`${stack.url}/api/v1/services/slack/${path}`, {
      headers: { authorization: `Bearer ${readToken}` },
    });

  test.each(['chat.postMessage?channel=C0123&text=hi', 'chat.delete?channel=C0123&ts=1700000000.000100'])(
    'GET slack %s with `read`: 403 naming the write scope, and Slack receives nothing',
    async (path) => {
      const response = await slackCall(path);
      expect(response.status).toBe(403);
      const { error } = ErrorBody.parse(await response.json());
      expect(error.code).toBe('INSUFFICIENT_SCOPE');
      expect(error.message).toContain('services:slack:write');
      expect(response.headers.get('www-authenticate')).toContain('scope="services:slack:write"');
      expect(slack.arrivals).toEqual([]);
    },
  );

  test("Slack's read methods still work with `read`", async () => {
    for (const path of ['conversations.list?limit=5', 'users.info?user=U0123']) {
      const response = await slackCall(path);
      expect(response.status).toBe(201);
      const arrival = (await response.json()) as { url: string; headers: Record<string, string> };
      expect(arrival.url).toBe(`/${path}`);
      expect(arrival.headers.authorization).toBe(`Bearer ${SLACK_KEY}`);
    }
    expect(slack.arrivals.map((arrival) => arrival.method)).toEqual(['GET', 'GET']);
  });
});

test('a chunked upload past the proxy’s BODY_LIMIT_BYTES: 413 PAYLOAD_TOO_LARGE through the gateway', async () => {
  const req = request(`${stack.url}/api/v1/services/github/repos/octo/big`, {
    method: 'POST',
    headers: { authorization: `Bearer ${writeToken}`, 'content-type': 'application/octet-stream' },
  });
  const answered = once(req, 'response') as Promise<[IncomingMessage]>;
  // Sent at once, as a fast client on a fast link does: the body is still arriving when the proxy
  // answers, and the client's socket must stay open until it has read the answer.
  for (let i = 0; i < 16; i += 1) req.write(Buffer.alloc(BODY_LIMIT / 2, 5));
  req.end();
  const [response] = await answered;
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  expect(response.statusCode).toBe(413);
  const { error } = ErrorBody.parse(JSON.parse(Buffer.concat(chunks).toString()));
  expect(error.code).toBe('PAYLOAD_TOO_LARGE');
  expect(error.message).toContain(String(BODY_LIMIT));
  expect(github.arrivals.some((arrival) => arrival.url === '/repos/octo/big')).toBe(false);
});
