/**
 * Every call forwarded to a connected service yields one `proxy.call` event on the AUDIT stream
 * (docs/adr/0041): the agent as actor, the owner, the service, method, host and path without the
 * query string, the upstream status or the failure's code, the latency; nothing secret (the
 * vault credential, the caller's token, cookies, the query string, bodies). A call refused before
 * it is forwarded yields none (the gateway's request event covers it).
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ActionAuditEvent } from '@pag/contracts';
import { ActionAuditEvent as ActionAuditEventSchema, AuditStream } from '@pag/contracts';
import { gatewayHeaders } from '@pag/kit/testing';
import { FakeUpstream } from './support/fake-upstream.ts';
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

describe('proxy.call', () => {
  test('a forwarded call: the agent, the owner, the service, status and latency, nothing secret', async () => {
    const requestId = `req-${randomUUID()}`;
    const answer = await call(
      '/api/v1/services/github/repos/octo/hello?access=token-in-query&q=private',
      requestId,
      {
        cookie: 'pag_session=owner-cookie',
      },
    );
    expect(answer.status).toBe(201);
    const event = await eventOf(requestId);
    expect(event).toMatchObject({
      kind: 'action',
      source: 'proxy',
      requestId,
      accountId: owner,
      clientId: 'agent-client',
      agentId: AGENT_ID,
      actor: { type: 'agent', id: AGENT_ID },
      action: 'proxy.call',
      target: 'github',
      status: 201,
      decision: 'allowed',
      reason: null,
      detail: { method: 'GET', host: new URL(upstream.url).host, path: '/gh/repos/octo/hello' },
    });
    expect(event.latencyMs).toBeGreaterThanOrEqual(0);
    expect(events.find((item) => item.event.requestId === requestId)?.subject).toBe('audit.events.proxy');
    const text = JSON.stringify(event);
    for (const secret of [SECRET, TOKEN, 'owner-cookie', 'token-in-query', 'private'])
      expect(text).not.toContain(secret);
  });

  test('a connected service that cannot be reached: no status, decision error and the code', async () => {
    const requestId = `req-${randomUUID()}`;
    const answer = await call('/api/v1/services/notion/pages/1', requestId);
    expect(answer.status).toBe(502);
    expect(await eventOf(requestId)).toMatchObject({
      action: 'proxy.call',
      target: 'notion',
      status: null,
      decision: 'error',
      reason: 'UPSTREAM_ERROR',
      detail: { method: 'GET', path: '/pages/1' },
    });
  });

  test('a caller that goes away before the service answered: error, CLIENT_CLOSED_REQUEST', async () => {
    const requestId = `req-${randomUUID()}`;
    const path = '/api/v1/services/github/upload';
    const req = request(`${stack.proxy.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'x-request-id': requestId,
        'transfer-encoding': 'chunked',
        ...gatewayHeaders('POST', path, { requestId }),
      },
    });
    req.on('error', () => {});
    req.write(Buffer.alloc(1024, 1));
    // The service has the first chunk and waits for the rest; the caller leaves.
    await upstream.firstChunk.promise;
    req.destroy();
    expect(await eventOf(requestId)).toMatchObject({
      target: 'github',
      status: null,
      decision: 'error',
      reason: 'CLIENT_CLOSED_REQUEST',
      detail: { method: 'POST', path: '/gh/upload' },
    });
  });

  test('one event per forwarded call, none for a call refused before it was forwarded', async () => {
    const refused = `req-${randomUUID()}`;
    const unknown = await call('/api/v1/services/figma/me', refused);
    expect(unknown.status).toBe(409);
    const forwarded = `req-${randomUUID()}`;
    expect((await call('/api/v1/services/github/user', forwarded)).status).toBe(201);
    // The stream delivers in order: by the time the second call's event is here, the first's would be.
    await eventOf(forwarded);
    expect(events.filter((item) => item.event.requestId === refused)).toEqual([]);
    expect(events.filter((item) => item.event.requestId === forwarded)).toHaveLength(1);
  });
});
