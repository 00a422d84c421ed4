/**
 * proxy.calls.forward: the brain's calls for a trigger run, asked over the bus with the run's
 * account, agent and scopes, against a stand-in connected service on loopback. They are decided as
 * over HTTP (the connector's read/write, the scope, the connection), carry the owner's credential
 * and nothing else, are never redirected, time out, are cut at PROXY_CALL_BODY_MAX_BYTES, and
 * each forwarded one is one `proxy.call` audit event.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ActionAuditEvent, ProxyCallRequest } from '@pag/contracts';
import {
  ActionAuditEvent as ActionAuditEventSchema,
  AuditStream,
  MessageHeaders,
  PROXY_CALL_BODY_MAX_BYTES,
  ProxyEndpoints,
} from '@pag/contracts';
import { requestEndpoint } from '@pag/kit';
import { FakeUpstream } from './support/fake-upstream.ts';
import type { TestProxy } from './support/start-test-proxy.ts';
import { startTestProxy } from './support/start-test-proxy.ts';

const owner = randomUUID();
const stranger = randomUUID();
const SECRET = 'ghp_triggerRunSecret';
const TIMEOUT_MS = 1_500;

let stack: TestProxy;
let upstream: FakeUpstream;
const events: ActionAuditEvent[] = [];
const waiters = new Map<string, (event: ActionAuditEvent) => void>();

beforeAll(async () => {
  upstream = await FakeUpstream.start();
  stack = await startTestProxy({
    CONNECTOR_BASE_URLS: JSON.stringify({ github: `${upstream.url}/gh`, slack: `${upstream.url}/slack` }),
    UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  await stack.bus.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
  await stack.bus.consume<unknown>(AuditStream.name, 'call-forward-test', async (message) => {
    const event = ActionAuditEventSchema.parse(message.data);
    events.push(event);
    waiters.get(event.requestId)?.(event);
  });
  for (const service of ['github', 'slack'])
    await stack.operator.storeApiKeyConnection({ accountId: owner, service, label: 'main', value: SECRET });
}, 60_000);

afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
  await upstream?.[Symbol.asyncDispose]();
});

function forward(call: Partial<ProxyCallRequest>, requestId = `req-${randomUUID()}`) {
  return requestEndpoint(
    stack.bus,
    ProxyEndpoints.callForward,
    {
      accountId: owner,
      agentId: 'ag_triggerCreator',
      clientId: 'client-of-the-agent',
      scopes: ['services:github:read'],
      service: 'github',
      method: 'GET',
      path: 'user/repos',
      ...call,
    },
    { timeoutMs: 10_000, headers: { [MessageHeaders.requestId]: requestId } },
  );
}

function eventOf(requestId: string): Promise<ActionAuditEvent> {
  const seen = events.find((event) => event.requestId === requestId);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => waiters.set(requestId, resolve));
}

const arrivalsAt = (suffix: string) => upstream.arrivals.filter((a) => a.url.includes(suffix));

describe('a call the scopes allow', () => {
  test('reaches the service with the credential and the connector headers only, and is audited', async () => {
    const requestId = `req-${randomUUID()}`;
    const answer = await forward({ path: '/user/repos', query: { per_page: '5' } }, requestId);
    expect(answer).toMatchObject({ status: 201, contentType: 'application/json', truncated: false });
    const arrival = JSON.parse(answer.body) as {
      method: string;
      url: string;
      headers: Record<string, string>;
    };
    expect(arrival.method).toBe('GET');
    expect(arrival.url).toBe('/gh/user/repos?per_page=5');
    expect(arrival.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(arrival.headers['user-agent']).toBeDefined();
    for (const name of Object.keys(arrival.headers))
      expect([
        'authorization',
        'user-agent',
        'accept',
        'x-github-api-version',
        'host',
        'connection',
      ]).toContain(name);
    const event = await eventOf(requestId);
    expect(event).toMatchObject({
      action: 'proxy.call',
      accountId: owner,
      agentId: 'ag_triggerCreator',
      clientId: 'client-of-the-agent',
      target: 'github',
      decision: 'allowed',
      status: 201,
      detail: { method: 'GET', path: '/gh/user/repos' },
    });
    expect(JSON.stringify(event)).not.toContain(SECRET);
  });

  test('a redirect is answered as it is, never followed', async () => {
    const answer = await forward({ path: 'repos/redirect' });
    expect(answer.status).toBe(302);
    expect(arrivalsAt('/elsewhere')).toHaveLength(0);
  });

  test('a body past PROXY_CALL_BODY_MAX_BYTES as JSON text is cut and says so', async () => {
    // 1 MiB of NUL bytes: each one takes six bytes as JSON (\u0000), so far fewer fit.
    const answer = await forward({ path: 'repos/download/1' });
    expect(answer.truncated).toBe(true);
    const size = Buffer.byteLength(JSON.stringify(answer.body));
    expect(size).toBeLessThanOrEqual(PROXY_CALL_BODY_MAX_BYTES);
    expect(size).toBeGreaterThan(PROXY_CALL_BODY_MAX_BYTES - 6);
  });
});

describe('refusals', () => {
  test('a write with a read scope is INSUFFICIENT_SCOPE naming the scope, and nothing is sent', async () => {
    const before = upstream.arrivals.length;
    await expect(forward({ method: 'POST', path: 'user/repos', body: '{"name":"x"}' })).rejects.toMatchObject(
      {
        code: 'INSUFFICIENT_SCOPE',
        message: expect.stringContaining('services:github:user:write'),
      },
    );
    // Slack's write method taken by GET is a write too: the connector decides, as over HTTP.
    await expect(
      forward({ service: 'slack', path: 'chat.postMessage', scopes: ['services:slack:read'] }),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    expect(upstream.arrivals.length).toBe(before);
  });

  test('another service than the scopes name is refused', async () => {
    await expect(forward({ service: 'slack', path: 'conversations.list' })).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
    });
  });

  test('a service this account has not connected is SERVICE_NOT_CONNECTED', async () => {
    await expect(
      forward({ service: 'figma', path: 'me', scopes: ['services:figma:read'] }),
    ).rejects.toMatchObject({ code: 'SERVICE_NOT_CONNECTED' });
    await expect(forward({ accountId: stranger })).rejects.toMatchObject({ code: 'SERVICE_NOT_CONNECTED' });
  });

  test('dot segments, a query in the path and a method override are refused before anything is sent', async () => {
    const before = upstream.arrivals.length;
    await expect(forward({ path: 'user/../../admin' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(forward({ path: 'user?x=1' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(forward({ query: { _method: 'DELETE' } })).rejects.toMatchObject({
      code: 'METHOD_OVERRIDE_REFUSED',
    });
    await expect(forward({ body: '{}' })).rejects.toMatchObject({ code: 'BODY_NOT_ALLOWED' });
    expect(upstream.arrivals.length).toBe(before);
  });

  test('a service silent past UPSTREAM_TIMEOUT_MS is UPSTREAM_TIMEOUT, audited as an error', async () => {
    const requestId = `req-${randomUUID()}`;
    await expect(forward({ path: 'repos/slow' }, requestId)).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
    });
    expect(await eventOf(requestId)).toMatchObject({
      decision: 'error',
      reason: 'UPSTREAM_TIMEOUT',
      status: null,
    });
  });

  test("the service's own 429 is UPSTREAM_RATE_LIMITED naming its wait, audited with its status", async () => {
    const requestId = `req-${randomUUID()}`;
    const attempt = forward({ path: 'repos/rate-limited', query: { after: '12' } }, requestId);
    await expect(attempt).rejects.toMatchObject({ code: 'UPSTREAM_RATE_LIMITED' });
    await expect(attempt).rejects.toThrow(/retry after 12 s/);
    expect(await eventOf(requestId)).toMatchObject({ decision: 'allowed', status: 429 });
  });
});
