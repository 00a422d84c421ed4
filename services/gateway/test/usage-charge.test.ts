/**
 * gateway.usage.charge: a trigger run counts against its agent's daily and monthly limits like a
 * request, on the same counter rows and leases. Two gateways on a real PostgreSQL stand for two
 * replicas, each with its own bus (so a test picks the replica that answers); requests go over
 * HTTP with tokens from the fake auth service, charges over the bus as the trigger service sends
 * them, and the usage report is read as the dashboard reads it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { UsageReport } from '@pag/contracts';
import { ErrorBody, GatewaySubjects, UsageCharged } from '@pag/contracts';
import { type FakeAuthServer, freePort } from '@pag/kit/testing';
import type { GatewayReplicas } from './gateway-replicas.ts';
import { BUS_TIMEOUT_MS, startGatewayReplicas } from './gateway-replicas.ts';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

const PUBLIC_URL = 'https://gw.example';
const OWNER = '00000000-0000-4000-8000-00000000000a';
const OTHER_OWNER = '00000000-0000-4000-8000-00000000000b';
const CAPABILITIES = '/api/v1/tokens/me/capabilities';
const NO_LIMITS = { daily: null, monthly: null };

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

/** One run of agent `clientId` charged, as the trigger service asks it, at one replica. */
async function charge(
  clientId: string,
  limits: { daily: number | null; monthly: number | null },
  on: TestGateway = gateway,
  accountId = OWNER,
): Promise<UsageCharged> {
  const reply = await on.bus.request(
    GatewaySubjects.usageCharge,
    { accountId, clientId, limits },
    { timeoutMs: BUS_TIMEOUT_MS },
  );
  return UsageCharged.parse(reply);
}

/** The report a replica gives writes its own counts kept in memory first (another's within a second). */
function usage(clientIds: string[], accountId = OWNER, on: TestGateway = gateway): Promise<UsageReport> {
  return on.bus.request<UsageReport>(
    GatewaySubjects.usageGet,
    { accountId, clientIds },
    { timeoutMs: BUS_TIMEOUT_MS },
  );
}

/** A token of agent `clientId` with the agent claims the auth service adds. */
function issue(token: string, clientId: string, limitDaily: number | null): void {
  auth.tokens.set(token, {
    active: true,
    scope: 'read',
    client_id: clientId,
    sub: OWNER,
    account_id: OWNER,
    aud: `${PUBLIC_URL}/api/v1`,
    exp,
    iat: exp - 3600,
    token_type: 'Bearer',
    plan: 'pro',
    token_kind: 'oauth',
    agent_id: `ag_${clientId}`,
    agent_name: `Agent ${clientId}`,
    limit_daily: limitDaily,
    limit_monthly: null,
  });
}

async function call(token: string, on: TestGateway = gateway) {
  const response = await fetch(`${on.url}${CAPABILITIES}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as unknown };
}

const nextUtcDay = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
};

describe('a run charged to an agent with a daily limit of 2', () => {
  test('two runs are served across both replicas; the third is refused with the limit and when to retry', async () => {
    const limits = { daily: 2, monthly: null };
    expect(await charge('agt_runs', limits, gateway)).toEqual({
      served: true,
      retryAfterSeconds: null,
      message: null,
    });
    expect(await charge('agt_runs', limits, replica)).toEqual({
      served: true,
      retryAfterSeconds: null,
      message: null,
    });
    const refused = await charge('agt_runs', limits, gateway);
    expect(refused.served).toBe(false);
    expect(refused.message).toContain('daily limit of 2 requests');
    expect(refused.message).toContain(nextUtcDay().toISOString());
    const untilMidnight = (nextUtcDay().getTime() - Date.now()) / 1000;
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(Math.floor(untilMidnight) - 2);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(Math.ceil(untilMidnight) + 1);
    // The other replica decides on the same rows.
    expect((await charge('agt_runs', limits, replica)).served).toBe(false);
  });

  test('the usage report shows the two served runs, not the refused ones', async () => {
    expect((await usage(['agt_runs'])).agents).toEqual([
      { clientId: 'agt_runs', today: 2, thisMonth: 2, lastUsedAt: expect.any(String) },
    ]);
  });
});

describe('runs and requests share one allowance', () => {
  test('a daily limit of 3: two requests and one run pass, then neither a run nor a request does', async () => {
    issue('shared', 'agt_shared', 3);
    const limits = { daily: 3, monthly: null };
    expect((await call('shared', gateway)).status).toBe(200);
    expect((await charge('agt_shared', limits, replica)).served).toBe(true);
    expect((await call('shared', replica)).status).toBe(200);
    expect((await charge('agt_shared', limits, gateway)).served).toBe(false);
    const refused = await call('shared', gateway);
    expect(refused.status).toBe(429);
    expect(ErrorBody.parse(refused.body).error.code).toBe('USAGE_LIMIT_EXCEEDED');
    expect((await usage(['agt_shared'])).agents[0]).toMatchObject({ today: 3, thisMonth: 3 });
  });

  test('concurrent runs on both replicas never get past the limit', async () => {
    const limits = { daily: null, monthly: 4 };
    const charged = await Promise.all(
      Array.from({ length: 20 }, (_, i) => charge('agt_burst', limits, i % 2 === 0 ? gateway : replica)),
    );
    expect(charged.filter((c) => c.served)).toHaveLength(4);
    expect((await usage(['agt_burst'])).agents[0]).toMatchObject({ today: 4, thisMonth: 4 });
  });
});

describe('an agent without limits', () => {
  test('is served and counted, in its owner’s rows only', async () => {
    expect((await charge('agt_free', NO_LIMITS)).served).toBe(true);
    expect((await usage(['agt_free'])).agents[0]).toMatchObject({ today: 1, thisMonth: 1 });
    expect((await charge('agt_free', NO_LIMITS, replica)).served).toBe(true);
    expect((await usage(['agt_free'], OWNER, replica)).agents[0]).toMatchObject({ today: 2, thisMonth: 2 });
    expect((await usage(['agt_free'], OTHER_OWNER)).agents[0]).toMatchObject({ today: 0, thisMonth: 0 });
  });
});

describe('what cannot be charged', () => {
  test('a malformed charge is INVALID_REQUEST naming the field', async () => {
    await expect(
      gateway.bus.request(
        GatewaySubjects.usageCharge,
        { accountId: OWNER, limits: NO_LIMITS },
        { timeoutMs: BUS_TIMEOUT_MS },
      ),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('clientId') });
  });

  test('without its database a limited run is SERVICE_UNAVAILABLE (never served past a limit nobody checked), an unlimited one is served', async () => {
    await using cut = await startTestGateway({
      ...replicas.env,
      DATABASE_URL: `postgres://pag@127.0.0.1:${await freePort()}/pag`,
    });
    await expect(charge('agt_cut', { daily: 10, monthly: null }, cut)).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    // As a request of such an agent: counted in memory, written once the database answers.
    expect((await charge('agt_cut', NO_LIMITS, cut)).served).toBe(true);
  });
});
