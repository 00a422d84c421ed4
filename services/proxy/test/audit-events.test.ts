/**
 * A call that comes over HTTP (from the gateway) is audited in one row, the gateway's
 * (docs/adr/0069): the proxy tells it what became of the call in its answer's PROXY_CALL_HEADER,
 * before the answer starts: the service, the host and path called upstream without the query
 * string, the upstream status (null without an answer), the latency, the code of a refusal or
 * failure; nothing secret (the vault credential, the caller's token, cookies, the query string,
 * bodies). A connected service cannot forge it. Such a call has no `proxy.call` event of its
 * own any more; the brain's calls (proxy.calls.forward, call-forward.test.ts) still do.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo, Server } from 'node:net';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ActionAuditEvent, ProxiedCall } from '@pag/contracts';
import {
  ActionAuditEvent as ActionAuditEventSchema,
  AuditStream,
  MessageHeaders,
  PROXY_CALL_HEADER,
  ProxiedCall as ProxiedCallSchema,
  ProxyEndpoints,
} from '@pag/contracts';
import { requestEndpoint } from '@pag/kit';
import { FakeUpstream } from './support/fake-upstream.ts';
import type { Answer } from './support/http-call.ts';
import { httpCall } from './support/http-call.ts';
import type { TestProxy } from './support/start-test-proxy.ts';
import { API_AUDIENCE, startTestProxy } from './support/start-test-proxy.ts';

const owner = randomUUID();
const SECRET = 'ghp_auditOwnerSecret789';
const TOKEN = 'agent-token-audit';
const AGENT_ID = 'ag_auditedAgent';

let stack: TestProxy;
let upstream: FakeUpstream;
/**
 * The "notion" service: it resets every connection. A port found free and left unbound could be
 * taken by another test's server meanwhile (seen once: a 403 instead of the 502), so it is held.
 */
let resetting: Server;

/** Every audit event the stream delivers, and waiters for one of a request id. */
const events: { subject: string; event: ActionAuditEvent }[] = [];
const waiters = new Map<string, (event: ActionAuditEvent) => void>();
function eventOf(requestId: string): Promise<ActionAuditEvent> {
  const seen = events.find((item) => item.event.requestId === requestId);
  if (seen) return Promise.resolve(seen.event);
  return new Promise((resolve) => waiters.set(requestId, resolve));
}

beforeAll(async () => {
  upstream = await FakeUpstream.start();
  resetting = createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
  stack = await startTestProxy({
    CONNECTOR_BASE_URLS: JSON.stringify({
      github: `${upstream.url}/gh`,
      notion: `http://127.0.0.1:${(resetting.address() as AddressInfo).port}`,
    }),
  });
  await stack.bus.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
  await stack.bus.consume<unknown>(AuditStream.name, 'audit-test', async (message) => {
    const event = ActionAuditEventSchema.parse(message.data);
    events.push({ subject: message.subject, event });
    waiters.get(event.requestId)?.(event);
  });
  for (const service of ['github', 'notion'])
    await stack.operator.storeApiKeyConnection({ accountId: owner, service, label: 'main', value: SECRET });
  stack.auth.issue(TOKEN, { accountId: owner, scopes: ['full'], audience: API_AUDIENCE });
  // The auth service names the token's agent in its introspection answer (agent claims).
  Object.assign(stack.auth.tokens.get(TOKEN) ?? {}, { agent_id: AGENT_ID, token_kind: 'dashboard' });
}, 60_000);

afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
  await upstream?.[Symbol.asyncDispose]();
  await new Promise((resolve) => (resetting ? resetting.close(resolve) : resolve(undefined)));
});

const call = (path: string, requestId: string, headers: Record<string, string> = {}) =>
  httpCall(`${stack.proxy.url}${path}`, {
    headers: { authorization: `Bearer ${TOKEN}`, 'x-request-id': requestId, ...headers },
  });

/** The proxy's account of the call in its answer (what the gateway takes off for its audit row). */
function reportOf(answer: Answer): ProxiedCall {
  const header = answer.headers[PROXY_CALL_HEADER];
  expect(typeof header).toBe('string');
  return ProxiedCallSchema.parse(JSON.parse(String(header)));
}

describe('the call report for the gateway’s audit row (docs/adr/0069)', () => {
  test('a forwarded call: the service, host, path without the query, status and latency, nothing secret', async () => {
    const requestId = `req-${randomUUID()}`;
    const answer = await call(
      '/api/v1/services/github/repos/octo/hello?access=token-in-query&q=private',
      requestId,
      {
        cookie: 'pag_session=owner-cookie',
      },
    );
    expect(answer.status).toBe(201);
    const report = reportOf(answer);
    expect(report).toEqual({
      service: 'github',
      upstream: {
        host: new URL(upstream.url).host,
        path: '/gh/repos/octo/hello',
        status: 201,
        latencyMs: expect.any(Number),
      },
      reason: null,
    });
    const text = String(answer.headers[PROXY_CALL_HEADER]);
    for (const secret of [SECRET, TOKEN, 'owner-cookie', 'token-in-query', 'private'])
      expect(text).not.toContain(secret);
  });

  test('a path longer than the audit detail takes: cut at 500 characters, so the row is still written', async () => {
    const long = `/api/v1/services/github/${'a'.repeat(700)}`;
    const answer = await call(long, `req-${randomUUID()}`);
    expect(answer.status).toBe(201);
    expect(reportOf(answer).upstream?.path).toBe(`/gh/${'a'.repeat(700)}`.slice(0, 500));
  });

  test('a connected service that cannot be reached: no status, and the code', async () => {
    const answer = await call('/api/v1/services/notion/pages/1', `req-${randomUUID()}`);
    expect(answer.status).toBe(502);
    expect(reportOf(answer)).toMatchObject({
      service: 'notion',
      upstream: { path: '/pages/1', status: null },
      reason: 'UPSTREAM_ERROR',
    });
  });

  test('a call refused before it was forwarded: the service and the refusal, no upstream', async () => {
    const answer = await call('/api/v1/services/figma/me', `req-${randomUUID()}`);
    expect(answer.status).toBe(409);
    expect(reportOf(answer)).toEqual({ service: 'figma', upstream: null, reason: 'SERVICE_NOT_CONNECTED' });
  });

  test('a connected service cannot forge the report: its own pag- headers are dropped', async () => {
    const answer = await call('/api/v1/services/github/forged-report', `req-${randomUUID()}`);
    expect(answer.status).toBe(200);
    expect(reportOf(answer)).toMatchObject({ service: 'github', upstream: { status: 200 }, reason: null });
    expect(answer.headers['pag-account-id']).toBeUndefined();
  });

  test('no proxy.call event for a call that came over HTTP: the gateway’s row holds it', async () => {
    const overHttp = `req-${randomUUID()}`;
    expect((await call('/api/v1/services/github/user', overHttp)).status).toBe(201);
    // A call of the brain's (proxy.calls.forward) still has its event; the stream delivers in
    // order, so once it is here an event of the HTTP call before it would be too.
    const byBrain = `req-${randomUUID()}`;
    await requestEndpoint(
      stack.bus,
      ProxyEndpoints.callForward,
      {
        accountId: owner,
        agentId: AGENT_ID,
        clientId: 'agent-client',
        scopes: ['services:github:read'],
        service: 'github',
        method: 'GET',
        path: 'user',
      },
      { timeoutMs: 10_000, headers: { [MessageHeaders.requestId]: byBrain } },
    );
    expect(await eventOf(byBrain)).toMatchObject({ action: 'proxy.call', target: 'github', status: 201 });
    expect(events.filter((item) => item.event.requestId === overHttp)).toEqual([]);
  });
});
