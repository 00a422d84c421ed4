/**
 * Per-agent limits and usage, over HTTP against gateways on a real PostgreSQL with the gateway's
 * migrations; tokens and their agent claims come from the fake auth service. The usage the
 * dashboard reads is asked on the bus, as the auth service asks it. Two gateways in this process
 * stand for two replicas (test/limits-two-gateways.test.ts runs two processes).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { UsageReport } from '@pag/contracts';
import { ErrorBody, GatewaySubjects, TokenCapabilities } from '@pag/contracts';
import { type FakeAuthServer, freePort } from '@pag/kit/testing';
import type { GatewayReplicas } from './gateway-replicas.ts';
import { BUS_TIMEOUT_MS, startGatewayReplicas } from './gateway-replicas.ts';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

const PUBLIC_URL = 'https://gw.example';
const OWNER = '00000000-0000-4000-8000-00000000000a';
const OTHER_OWNER = '00000000-0000-4000-8000-00000000000b';
const CAPABILITIES = '/api/v1/tokens/me/capabilities';

let replicas: GatewayReplicas;
let auth: FakeAuthServer;
let gateway: TestGateway;
let replica: TestGateway;
const exp = Math.floor(Date.now() / 1000) + 3600;

beforeAll(async () => {
  replicas = await startGatewayReplicas(PUBLIC_URL);
  ({ auth, gateway, replica } = replicas);
});
afterAll(async () => {
  await replicas?.[Symbol.asyncDispose]();
});

/** A token of agent `clientId` of `account`, with the agent claims the auth service adds. */
function issue(token: string, clientId: string, claims: Record<string, unknown> = {}, account = OWNER): void {
  auth.tokens.set(token, {
    active: true,
    scope: 'read',
    client_id: clientId,
    sub: account,
    account_id: account,
    aud: `${PUBLIC_URL}/api/v1`,
    exp,
    iat: exp - 3600,
    token_type: 'Bearer',
    plan: 'free',
    token_kind: 'dashboard',
    agent_id: `ag_${clientId}`,
    agent_name: `Agent ${clientId}`,
    limit_daily: null,
    limit_monthly: null,
    ...claims,
  });
}

async function call(token: string, path = CAPABILITIES, on: TestGateway = gateway) {
  const response = await fetch(`${on.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
}

function usage(clientIds: string[], accountId = OWNER): Promise<UsageReport> {
  return gateway.bus.request<UsageReport>(
    GatewaySubjects.usageGet,
    { accountId, clientIds },
    { timeoutMs: BUS_TIMEOUT_MS },
  );
}

const nextUtc = (unit: 'day' | 'month') => {
  const now = new Date();
  return unit === 'day'
    ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
};

describe('a daily limit of 3', () => {
  test('3 calls pass and show their use; the 4th is 429 with Retry-After and the limit named', async () => {
    issue('daily-3', 'agt_daily', { limit_daily: 3 });
    for (const used of [1, 2, 3]) {
      const { status, body, headers } = await call('daily-3');
      expect(status).toBe(200);
      expect(headers.get('ratelimit-policy')).toBe('"daily";q=3;w=86400');
      expect(headers.get('ratelimit')).toMatch(new RegExp(`^"daily";r=${3 - used};t=\\d+$`));
      expect(TokenCapabilities.parse(body).limits).toEqual({
        daily: { limit: 3, used, resetsAt: nextUtc('day').toISOString() },
        monthly: null,
      });
    }
    const refused = await call('daily-3');
    expect(refused.status).toBe(429);
    const error = ErrorBody.parse(refused.body).error;
    expect(error.code).toBe('USAGE_LIMIT_EXCEEDED');
    expect(error.message).toContain('daily limit of 3 requests');
    expect(error.message).toContain(nextUtc('day').toISOString());
    const untilMidnight = (nextUtc('day').getTime() - Date.now()) / 1000;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(Math.floor(untilMidnight) - 2);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(Math.ceil(untilMidnight) + 1);
    // The window that was hit: nothing left, reset at the same moment as Retry-After.
    expect(refused.headers.get('ratelimit-policy')).toBe('"daily";q=3;w=86400');
    expect(refused.headers.get('ratelimit')).toBe(`"daily";r=0;t=${refused.headers.get('retry-after')}`);
  });

  test('refused requests do not count: the usage stays at the limit', async () => {
    expect((await call('daily-3')).status).toBe(429);
    const { agents } = await usage(['agt_daily']);
    expect(agents).toEqual([
      { clientId: 'agt_daily', today: 3, thisMonth: 3, lastUsedAt: expect.any(String) },
    ]);
    // Refused again by the replica that refused it, without touching the counters.
    expect((await call('daily-3')).status).toBe(429);
    expect((await usage(['agt_daily'])).agents).toEqual(agents);
  });

  test('a raised limit (a new introspection answer) lets the agent through at once', async () => {
    issue('daily-5', 'agt_daily', { limit_daily: 5 });
    const { status, body } = await call('daily-5');
    expect(status).toBe(200);
    expect(TokenCapabilities.parse(body).limits.daily).toMatchObject({ limit: 5, used: 4 });
  });

  test('every replica sees the same count: a fresh agent uses its 3 calls across two gateways', async () => {
    issue('shared-3', 'agt_shared', { limit_daily: 3 });
    expect((await call('shared-3', CAPABILITIES, gateway)).status).toBe(200);
    expect((await call('shared-3', CAPABILITIES, replica)).status).toBe(200);
    expect((await call('shared-3', CAPABILITIES, gateway)).status).toBe(200);
    expect((await call('shared-3', CAPABILITIES, replica)).status).toBe(429);
  });

  test('concurrent calls never get past the limit', async () => {
    issue('burst-5', 'agt_burst', { limit_daily: 5 });
    const statuses = await Promise.all(
      Array.from({ length: 24 }, (_, i) => call('burst-5', CAPABILITIES, i % 2 === 0 ? gateway : replica)),
    );
    expect(statuses.filter((r) => r.status === 200)).toHaveLength(5);
    expect(statuses.filter((r) => r.status === 429)).toHaveLength(19);
    expect((await usage(['agt_burst'])).agents[0]?.today).toBe(5);
  });
});

describe('a monthly limit', () => {
  test('refuses once reached, with Retry-After to the first of next month', async () => {
    issue('monthly-2', 'agt_monthly', { limit_monthly: 2 });
    expect((await call('monthly-2')).status).toBe(200);
    const second = await call('monthly-2');
    expect(TokenCapabilities.parse(second.body).limits.monthly).toEqual({
      limit: 2,
      used: 2,
      resetsAt: nextUtc('month').toISOString(),
    });
    const refused = await call('monthly-2');
    expect(refused.status).toBe(429);
    expect(ErrorBody.parse(refused.body).error.message).toContain('monthly limit of 2 requests');
    const untilMonthEnd = (nextUtc('month').getTime() - Date.now()) / 1000;
    expect(Math.abs(Number(refused.headers.get('retry-after')) - untilMonthEnd)).toBeLessThanOrEqual(2);
  });
});

describe('what counts', () => {
  test('an agent without limits is counted; refused tokens, missing scopes and open routes are not', async () => {
    issue('free-agent', 'agt_free', { scope: 'chat' });
    const free = await call('free-agent');
    expect(free.status).toBe(200);
    expect(free.headers.get('ratelimit')).toBeNull();
    expect((await call('not-a-token')).status).toBe(401);
    expect((await call('free-agent', '/api/v1/brain/knowledge-base')).status).toBe(403);
    expect((await call('free-agent', '/api/v1/')).status).toBe(200);
    const { agents } = await usage(['agt_free']);
    expect(agents[0]).toMatchObject({ today: 1, thisMonth: 1 });
  });
});

describe('gateway.usage.get', () => {
  test("answers each asked agent in order, zeros for one that never called, and only from that owner's rows", async () => {
    issue('mine', 'agt_both');
    issue('theirs', 'agt_both', {}, OTHER_OWNER);
    const before = Date.now();
    await call('mine');
    await call('theirs');
    await call('theirs');
    const { agents } = await usage(['agt_never', 'agt_both']);
    expect(agents).toEqual([
      { clientId: 'agt_never', today: 0, thisMonth: 0, lastUsedAt: null },
      { clientId: 'agt_both', today: 1, thisMonth: 1, lastUsedAt: expect.any(String) },
    ]);
    expect(Date.parse(agents[1]?.lastUsedAt ?? '')).toBeGreaterThanOrEqual(before - 1_000);
    expect((await usage(['agt_both'], OTHER_OWNER)).agents[0]).toMatchObject({ today: 2, thisMonth: 2 });
  });

  test('a malformed query is INVALID_REQUEST naming the field', async () => {
    await expect(
      gateway.bus.request(GatewaySubjects.usageGet, { accountId: OWNER }, { timeoutMs: BUS_TIMEOUT_MS }),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('clientIds') });
  });
});

describe('without its database', () => {
  test('an agent with a limit cannot be counted: 503, never served past a limit nobody checked', async () => {
    issue('limited', 'agt_limited', { limit_monthly: 1000 });
    issue('unlimited', 'agt_unlimited');
    await using cut = await startTestGateway({
      ...replicas.env,
      DATABASE_URL: `postgres://pag@127.0.0.1:${await freePort()}/pag`,
    });
    const { status, body } = await call('limited', CAPABILITIES, cut);
    expect(status).toBe(503);
    expect(ErrorBody.parse(body).error.code).toBe('SERVICE_UNAVAILABLE');
    expect((await call('unlimited', CAPABILITIES, cut)).status).toBe(200);
    expect((await call('any', '/api/v1/', cut)).status).toBe(200);
  });
});
