/**
 * Audit emission on the in-memory bus: every kind of answer (accepted, refused, 404, 413, 429,
 * 503, the auth service's forwarded pages, streamed ones too) yields exactly one event on the
 * AUDIT stream with the request's id, status, decision and reason, and nothing secret in it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { RequestAuditEvent } from '@pag/contracts';
import { ErrorBody } from '@pag/contracts';
import { applyMigrations } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import {
  FakeAuthServer,
  startTestPostgres,
  TEST_INTROSPECTION_CLIENT,
  TEST_TOKEN_TAG_KEY,
} from '@pag/kit/testing';
import { gatewayDatabase } from '../src/database.ts';
import { AuditLog } from './audit-log.ts';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

const PUBLIC_URL = 'https://gw.example';
const ACCOUNT = '00000000-0000-4000-8000-0000000000a1';
const exp = Math.floor(Date.now() / 1000) + 3600;

let postgres: TestPostgres;
let auth: FakeAuthServer;
let gateway: TestGateway;
let log: AuditLog;

function issue(token: string, claims: Record<string, unknown>): void {
  auth.tokens.set(token, {
    active: true,
    client_id: 'agt_audit',
    sub: ACCOUNT,
    account_id: ACCOUNT,
    aud: `${PUBLIC_URL}/api/v1`,
    exp,
    iat: exp - 3600,
    token_type: 'Bearer',
    token_kind: 'dashboard',
    agent_id: 'ag_audit',
    agent_name: 'Audit test agent',
    ...claims,
  });
}

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
  auth = await FakeAuthServer.start();
  gateway = await startTestGateway({
    PUBLIC_URL,
    AUTH_URL: auth.url,
    DATABASE_URL: postgres.url,
    BODY_LIMIT_BYTES: '1024',
    INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
    TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
    INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
  });
  log = await AuditLog.follow(gateway.bus);
  issue('good-token', { scope: 'read' });
  issue('availability-token', { scope: 'availability' });
  issue('exhausted-token', { scope: 'read', limit_daily: 0 });
});
afterAll(async () => {
  await log?.[Symbol.asyncDispose]();
  await gateway?.[Symbol.asyncDispose]();
  await auth?.[Symbol.asyncDispose]();
  await postgres?.stop();
});

interface Sent {
  requestId: string;
  status: number;
  code: string | null;
  contentLength: number | null;
}

async function send(path: string, init: RequestInit & { token?: string } = {}): Promise<Sent> {
  const headers = new Headers(init.headers);
  if (init.token !== undefined) headers.set('authorization', `Bearer ${init.token}`);
  const response = await fetch(`${gateway.url}${path}`, { ...init, headers, redirect: 'manual' });
  const text = await response.text();
  const error = response.status >= 400 ? ErrorBody.safeParse(JSON.parse(text || 'null')) : undefined;
  const length = response.headers.get('content-length');
  return {
    requestId: response.headers.get('x-request-id') ?? '',
    status: response.status,
    code: error?.success ? error.data.error.code : null,
    contentLength: length === null ? null : Number(length),
  };
}

async function onlyEventOf(sent: Sent): Promise<RequestAuditEvent> {
  const events = await log.of(sent.requestId);
  expect(events).toHaveLength(1);
  const [event] = events as [RequestAuditEvent];
  expect(event).toMatchObject({
    source: 'gateway',
    status: sent.status,
    reason: sent.code,
    decision: sent.status < 400 ? 'allowed' : sent.status < 500 ? 'denied' : 'error',
    clientAddress: '127.0.0.1',
  });
  expect(event.latencyMs).toBeGreaterThan(0);
  expect(Date.parse(event.time)).toBeLessThanOrEqual(Date.now());
  return event;
}

describe('one audit event per request', () => {
  test('an anonymous 200 and a 404: no identity, exact bytes out', async () => {
    const index = await send('/api/v1/');
    expect(index.status).toBe(200);
    expect(await onlyEventOf(index)).toMatchObject({
      method: 'GET',
      path: '/api/v1/',
      accountId: null,
      clientId: null,
      agentId: null,
      tokenKind: null,
      bytesIn: 0,
      bytesOut: index.contentLength,
    });
    const missing = await send('/api/v1/no-such-endpoint');
    expect(missing).toMatchObject({ status: 404, code: 'ROUTE_NOT_FOUND' });
    await onlyEventOf(missing);
  });

  test('an accepted token: the event names the account, agent and token kind', async () => {
    const sent = await send('/api/v1/tokens/me/capabilities', { token: 'good-token' });
    expect(sent.status).toBe(200);
    expect(await onlyEventOf(sent)).toMatchObject({
      accountId: ACCOUNT,
      clientId: 'agt_audit',
      agentId: 'ag_audit',
      tokenKind: 'dashboard',
      reason: null,
    });
  });

  test('refusals: no token, unknown token, missing scope, over the limit', async () => {
    const cases: Array<[Sent, string]> = [
      [await send('/api/v1/tokens/me/capabilities'), 'AUTHENTICATION_REQUIRED'],
      [await send('/api/v1/tokens/me/capabilities', { token: 'unknown-token' }), 'INVALID_TOKEN'],
      [await send('/api/v1/brain/knowledge-base', { token: 'availability-token' }), 'INSUFFICIENT_SCOPE'],
      [await send('/api/v1/tokens/me/capabilities', { token: 'exhausted-token' }), 'USAGE_LIMIT_EXCEEDED'],
    ];
    for (const [sent, code] of cases) {
      expect(sent.code).toBe(code);
      const event = await onlyEventOf(sent);
      expect(event.decision).toBe('denied');
    }
    const scope = await log.of(cases[2]?.[0].requestId ?? '');
    expect(scope[0]).toMatchObject({ accountId: ACCOUNT, tokenKind: 'dashboard' });
  });

  test('a token in the query string is refused, and neither it nor the query reach the event', async () => {
    const sent = await send('/api/v1/tokens/me/capabilities?access_token=query-secret-123');
    expect(sent.code).toBe('TOKEN_IN_QUERY');
    const event = await onlyEventOf(sent);
    expect(event.path).toBe('/api/v1/tokens/me/capabilities');
    expect(JSON.stringify(event)).not.toContain('query-secret-123');
  });

  test('bytes in: an oversized body is a 413 that counts what was declared', async () => {
    const body = JSON.stringify({ content: 'x'.repeat(2_000) });
    const sent = await send('/api/v1/memory', {
      method: 'POST',
      token: 'good-token',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(sent).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect((await onlyEventOf(sent)).bytesIn).toBe(Buffer.byteLength(body));
  });

  test('a failure behind the gateway is recorded as an error with its code', async () => {
    // No brain service runs on this bus: 503 SERVICE_UNAVAILABLE from dispatch.
    const sent = await send('/api/v1/personas', { token: 'good-token' });
    expect(sent).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect((await onlyEventOf(sent)).decision).toBe('error');
  });

  test("the auth service's pages: a redirect and a streamed answer are recorded too", async () => {
    const redirect = await send('/login', { method: 'POST', body: 'email=a%40b.c' });
    expect(redirect.status).toBe(303);
    expect(await onlyEventOf(redirect)).toMatchObject({ path: '/login', bytesIn: 13, bytesOut: 0 });

    auth.release = Promise.resolve();
    const streamed = await send('/oauth/stream');
    expect(streamed.status).toBe(200);
    // Recorded when its head was ready: a streamed body without Content-Length has no size yet.
    expect((await onlyEventOf(streamed)).bytesOut).toBeNull();
  });

  test('the request id a client sends is the one recorded', async () => {
    const sent = await send('/api/v1/', { headers: { 'x-request-id': 'client-chosen-id-42' } });
    expect(sent.requestId).toBe('client-chosen-id-42');
    await onlyEventOf(sent);
  });

  test('every request above was recorded once, in the order served', async () => {
    const last = await send('/api/v1/');
    await log.of(last.requestId);
    const ids = log.events.map((event) => event.requestId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.at(-1)).toBe(last.requestId);
  });
});
