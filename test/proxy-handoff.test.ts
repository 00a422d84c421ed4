/**
 * The proxied call in the embedded stack (docs/adr/0069): the gateway hands
 * /api/v1/services/* to the proxy in process, with the caller it verified. Nothing reaches the
 * proxy's HTTP listener, the token is introspected once (by the gateway), and what goes upstream
 * is what the proxy sends behind its listener: the owner's credential, none of the caller's
 * identity or forwarding headers.
 *
 * Each call is one audit row, the gateway's request row, with the service (target) and what was
 * called upstream (detail: host, path, status, latency) or the refusal's code.
 *
 * The separate-process shape on the same stack: a second gateway in this process, on the stack's
 * nats-server and database, forwarding to the proxy's listener (PROXY_URL) as in k8s and compose.
 * A refusal inside the proxy (not connected, the provider's 429, a method override) and the
 * gateway's scope check of a write answer alike through both: status, body, Retry-After and the
 * audit row.
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ErrorBody } from '@pag/contracts';
import { createLogger, createMetrics, createPrismaClient, NatsBus } from '../packages/kit/src/mod.ts';
import type { NatsServer } from '../packages/kit/src/testing/mod.ts';
import { eventually, startNatsServer } from '../packages/kit/src/testing/mod.ts';
import {
  embeddedGatewaySecret,
  embeddedTokenTagKey,
  loadStackSecrets,
} from '../packages/stack/src/secrets.ts';
import type { RunningStack } from '../packages/stack/src/start-stack.ts';
import { startStack } from '../packages/stack/src/start-stack.ts';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { auditDatabase } from '../services/audit/src/database.ts';
import { PrismaClient } from '../services/audit/src/generated/prisma/client.ts';
import { authService } from '../services/auth/src/mod.ts';
import type { RunningGateway } from '../services/gateway/src/mod.ts';
import { loadGatewayConfig, startGateway } from '../services/gateway/src/mod.ts';
import { proxyService } from '../services/proxy/src/mod.ts';
import { FakeUpstream } from '../services/proxy/test/support/fake-upstream.ts';

const OWNER = { email: 'dana@handoff.test', password: 'dana long password' };
const KEY = 'ghp_handoffTestKey0123456789';
const logger = createLogger({ service: 'proxy-handoff-test', level: 'silent' });

let dataDir: string;
let nats: NatsServer;
let github: FakeUpstream;
let stack: RunningStack;
let separateBus: NatsBus;
let separate: RunningGateway;
let stdin = '';
let auditDb: PrismaClient;

/** Requests the proxy's HTTP listener and the auth service's introspection endpoint received. */
const seen = { proxy: 0, introspections: 0 };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pag-handoff-test-'));
  // mkdtemp makes it 0700; run as root, PostgreSQL runs as `postgres` and must get through.
  await chmod(dataDir, 0o755);
  nats = await startNatsServer();
  github = await FakeUpstream.start();
  stack = await startStack({
    DATA_DIR: dataDir,
    PORT: '0',
    OPS_PORT: '0',
    HOST: '127.0.0.1',
    NATS_URL: nats.url,
    LOG_LEVEL: 'silent',
    CONNECTOR_BASE_URLS: JSON.stringify({ github: github.url }),
  });
  const proxy = stack.started(proxyService);
  const auth = stack.started(authService);
  proxy.server.on('request', () => {
    seen.proxy += 1;
  });
  auth.server.on('request', (req: IncomingMessage) => {
    if (req.url === '/oauth/introspect') seen.introspections += 1;
  });

  // The separate-process shape: the gateway forwards to the proxy's listener over HTTP.
  const secrets = await loadStackSecrets(dataDir);
  separateBus = await NatsBus.connect({ url: nats.url, name: 'separate-gateway', logger });
  separate = await startGateway({
    config: loadGatewayConfig({
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: stack.publicUrl,
      DATABASE_URL: stack.databaseUrl,
      AUTH_URL: auth.url,
      PROXY_URL: proxy.url,
      GATEWAY_SECRET: embeddedGatewaySecret(secrets),
      INTROSPECTION_CLIENT_ID: secrets.introspectionClientId,
      INTROSPECTION_CLIENT_SECRET: secrets.introspectionClientSecret,
      TOKEN_TAG_KEYS: embeddedTokenTagKey(secrets),
    }),
    bus: separateBus,
    logger,
    metrics: createMetrics({ defaultMetrics: false }),
  });

  auditDb = createPrismaClient(PrismaClient, {
    databaseUrl: stack.databaseUrl,
    schema: auditDatabase.schema,
  });
  expect((await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password)).code).toBe(0);
  stdin = `${KEY}\n`;
  const added = await pag(
    'connection',
    'add',
    '--owner',
    OWNER.email,
    '--service',
    'github',
    '--label',
    'main',
  );
  stdin = '';
  expect(added.code).toBe(0);
}, 120_000);

afterAll(async () => {
  await auditDb?.$disconnect();
  await separate?.close();
  await separateBus?.close();
  await stack?.close();
  await github?.[Symbol.asyncDispose]();
  await nats?.stop();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

function pag(...argv: string[]) {
  return pagCommand(
    () => dataDir,
    () => stdin,
  )(...argv);
}

async function createToken(name: string, scopes: string): Promise<string> {
  const made = await pag('token', 'create', '--owner', OWNER.email, '--name', name, '--scopes', scopes);
  expect(made.code).toBe(0);
  return made.out.at(-1) ?? '';
}

interface AuditRow {
  kind: string;
  source: string;
  action: string;
  agent_id: string | null;
  method: string;
  path: string;
  status: number;
  decision: string;
  reason: string | null;
  target: string | null;
  detail: Record<string, unknown>;
}

/** Every audit row of a request id, once there is one (the log is written after the stream's ack). */
function auditRows(requestId: string): Promise<AuditRow[]> {
  return eventually(
    async () => {
      const rows = await auditDb.$queryRaw<AuditRow[]>`
        SELECT kind, source, action, agent_id, method, path, status, decision, reason, target, detail
          FROM audit.records WHERE request_id = ${requestId}`;
      if (rows.length === 0) throw new Error(`no audit row for ${requestId} yet`);
      return rows;
    },
    { what: `the audit row of ${requestId}` },
  );
}

/** The port the separate gateway listens on, as a URL (its PUBLIC_URL is the stack's). */
function separateUrl(): string {
  return `http://127.0.0.1:${separate.port}`;
}

describe('in the embedded stack', () => {
  test('a proxied call makes no HTTP request to the proxy and no second introspection', async () => {
    const token = await createToken('handoff-reader', 'services:github:read');
    const before = { ...seen };
    const requestIds: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const answer = await fetch(`${stack.publicUrl}/api/v1/services/github/user?page=${i}`, {
        headers: {
          authorization: `Bearer ${token}`,
          cookie: 'session=of-the-caller',
          'x-forwarded-for': '203.0.113.9',
          'pag-account-id': '00000000-0000-4000-8000-000000000000',
        },
      });
      expect(answer.status).toBe(201);
      const arrival = (await answer.json()) as { url: string; headers: Record<string, string> };
      expect(arrival.url).toBe(`/user?page=${i}`);
      expect(arrival.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(
        Object.keys(arrival.headers).filter((name) =>
          /^(pag-|x-forwarded-|cookie$|x-request-id$)/.test(name),
        ),
      ).toEqual([]);
      // What the gateway's answer carries, not the service's: no cookie, its own cache policy.
      expect(answer.headers.get('set-cookie')).toBeNull();
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-request-id')).toMatch(/.+/);
      expect(answer.headers.get('pag-proxy-call')).toBeNull();
      requestIds.push(answer.headers.get('x-request-id') ?? '');
    }
    expect(seen.proxy - before.proxy).toBe(0);
    // One introspection for a token no cache knew: the gateway's; the proxy asked nothing.
    expect(seen.introspections - before.introspections).toBe(1);
    // One audit row per call, the gateway's, with what the proxy did upstream.
    for (const requestId of requestIds) {
      expect(await auditRows(requestId)).toEqual([
        {
          kind: 'request',
          source: 'gateway',
          action: 'http.request',
          agent_id: expect.any(String),
          method: 'GET',
          path: '/api/v1/services/github/user',
          status: 201,
          decision: 'allowed',
          reason: null,
          target: 'github',
          detail: {
            upstreamHost: new URL(github.url).host,
            upstreamPath: '/user',
            upstreamStatus: 201,
            upstreamLatencyUs: expect.any(Number),
          },
        },
      ]);
    }
  });
});

describe('the same refusals in process and over HTTP', () => {
  let reader: string;
  let writer: string;
  beforeAll(async () => {
    reader = await createToken('both-reader', 'read');
    writer = await createToken('both-writer', 'full');
  });

  const cases: Array<[string, string, 'reader' | 'writer', RequestInit, number, string]> = [
    [
      'a write with a read token',
      '/api/v1/services/github/repos/o/r/issues',
      'reader',
      { method: 'POST', body: '{}' },
      403,
      'INSUFFICIENT_SCOPE',
    ],
    [
      'a service not connected',
      '/api/v1/services/notion/search',
      'writer',
      { method: 'POST', body: '{}' },
      409,
      'SERVICE_NOT_CONNECTED',
    ],
    [
      'the provider’s own 429',
      '/api/v1/services/github/rate-limited?after=7',
      'reader',
      {},
      429,
      'UPSTREAM_RATE_LIMITED',
    ],
    [
      'a method override',
      '/api/v1/services/github/user?_method=DELETE',
      'reader',
      {},
      400,
      'METHOD_OVERRIDE_REFUSED',
    ],
  ];

  test.each(cases)('%s', async (_name, path, who, init, status, code) => {
    const token = who === 'reader' ? reader : writer;
    const ask = async (base: string) => {
      const answer = await fetch(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      const body = ErrorBody.parse(await answer.json());
      expect(body.error.requestId).toBe(answer.headers.get('x-request-id'));
      expect(answer.headers.get('pag-proxy-call')).toBeNull();
      // Audited once, with the refusal's code and, for a call the proxy saw, the service.
      const rows = await auditRows(body.error.requestId);
      expect(rows).toHaveLength(1);
      const [{ status, reason, target, detail }] = rows as [AuditRow];
      return {
        status: answer.status,
        retryAfter: answer.headers.get('retry-after'),
        error: { ...body.error, requestId: undefined },
        row: { status, reason, target, detail: { ...detail, upstreamLatencyUs: undefined } },
      };
    };
    const before = seen.proxy;
    const inProcess = await ask(stack.publicUrl);
    expect(seen.proxy).toBe(before);
    const overHttp = await ask(separateUrl());
    expect(inProcess).toEqual(overHttp);
    expect([inProcess.status, inProcess.error.code]).toEqual([status, code]);
    expect(inProcess.row.reason).toBe(code);
    if (code === 'UPSTREAM_RATE_LIMITED') expect(inProcess.retryAfter).toBe('7');
  });
});

test('an absolute-form request target naming another host: 400 at the gateway, in process and over HTTP', async () => {
  const token = await createToken('absolute-form', 'services:github:read');
  const before = github.arrivals.length;
  for (const base of [stack.publicUrl, separateUrl()]) {
    const { port } = new URL(base);
    const head = await rawRequest(
      Number(port),
      `GET http://evil.example/api/v1/services/github/user HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toContain('"code":"INVALID_REQUEST"');
  }
  expect(github.arrivals.length).toBe(before);
});

/** One request written as given (fetch would never send the absolute form), the whole answer read. */
async function rawRequest(port: number, text: string): Promise<string> {
  // Written, not ended: a client that half-closes first may get no answer at all.
  const socket = connect(port, '127.0.0.1', () => socket.write(text));
  let answer = '';
  for await (const chunk of socket) answer += String(chunk);
  return answer;
}
