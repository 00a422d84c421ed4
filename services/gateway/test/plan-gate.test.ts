/**
 * The route table's `plan`: POST /api/v1/triggers is for owners on the pro or heavy plan. Over
 * HTTP against a gateway on a real PostgreSQL (so a request past the gate is counted and
 * dispatched), with tokens whose plan claim the fake auth service states. No trigger service runs
 * here: a request past the gate ends as the dispatch's 503 naming it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TriggerCreateRequest, UsageReport } from '@pag/contracts';
import { ErrorBody, ErrorCatalogue, GatewaySubjects } from '@pag/contracts';
import { applyMigrations } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import {
  FakeAuthServer,
  startTestPostgres,
  TEST_INTROSPECTION_CLIENT,
  TEST_TOKEN_TAG_KEY,
} from '@pag/kit/testing';
import { gatewayDatabase } from '../src/database.ts';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

const PUBLIC_URL = 'https://gw.example';
const OWNER = '00000000-0000-4000-8000-00000000000a';
const TRIGGERS = '/api/v1/triggers';
const exp = Math.floor(Date.now() / 1000) + 3600;

const DAILY_DIGEST: TriggerCreateRequest = {
  name: 'Morning digest',
  kind: 'schedule',
  schedule: { type: 'daily', atHour: 8, atMinute: 30 },
  timezone: 'Europe/Berlin',
  actionType: 'ai_prompt',
  action: { prompt: 'Summarise what happened overnight.', services: [] },
};

let postgres: TestPostgres;
let auth: FakeAuthServer;
let gateway: TestGateway;

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
  auth = await FakeAuthServer.start();
  gateway = await startTestGateway({
    PUBLIC_URL,
    AUTH_URL: auth.url,
    DATABASE_URL: postgres.url,
    INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
    TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
    INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
  });
});
afterAll(async () => {
  await gateway?.[Symbol.asyncDispose]();
  await auth?.[Symbol.asyncDispose]();
  await postgres?.stop();
});

/** A `full` token of agent `clientId` whose owner is on `plan` (undefined: the claim is absent). */
function issue(token: string, clientId: string, plan: string | undefined): void {
  auth.tokens.set(token, {
    active: true,
    scope: 'full',
    client_id: clientId,
    sub: OWNER,
    account_id: OWNER,
    aud: `${PUBLIC_URL}/api/v1`,
    exp,
    iat: exp - 3600,
    token_type: 'Bearer',
    ...(plan === undefined ? {} : { plan }),
    token_kind: 'oauth',
    agent_id: `ag_${clientId}`,
    agent_name: `Agent ${clientId}`,
    limit_daily: null,
    limit_monthly: null,
  });
}

async function send(token: string, method: 'GET' | 'POST', path = TRIGGERS) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: method === 'POST' ? JSON.stringify(DAILY_DIGEST) : undefined,
  });
  return { status: response.status, error: ErrorBody.parse(await response.json()).error };
}

function usedToday(clientId: string): Promise<number | undefined> {
  return gateway.bus
    .request<UsageReport>(
      GatewaySubjects.usageGet,
      { accountId: OWNER, clientIds: [clientId] },
      { timeoutMs: 2_000 },
    )
    .then((report) => report.agents[0]?.today);
}

describe('creating a trigger needs a pro or heavy plan', () => {
  test('a free owner is refused with 403 PLAN_REQUIRED, its hint, and is not counted', async () => {
    issue('free', 'agt_free', 'free');
    const { status, error } = await send('free', 'POST');
    expect(status).toBe(403);
    expect(error.code).toBe('PLAN_REQUIRED');
    expect(error.message).toBe(
      "POST /api/v1/triggers needs the pro or heavy plan; the owner's plan is free.",
    );
    expect(error.hint).toBe(ErrorCatalogue.PLAN_REQUIRED.hint);
    expect(await usedToday('agt_free')).toBe(0);
  });

  test('an answer that states no plan counts as free', async () => {
    issue('no-plan', 'agt_no_plan', undefined);
    const { status, error } = await send('no-plan', 'POST');
    expect(status).toBe(403);
    expect(error.code).toBe('PLAN_REQUIRED');
    expect(error.message).toContain("the owner's plan is free");
  });

  test.each(['pro', 'heavy'])(
    'a %s owner passes the gate: counted and dispatched to the trigger service',
    async (plan) => {
      issue(plan, `agt_${plan}`, plan);
      const { status, error } = await send(plan, 'POST');
      expect(status).toBe(503);
      expect(error.code).toBe('SERVICE_UNAVAILABLE');
      expect(error.message).toContain('trigger');
      expect(await usedToday(`agt_${plan}`)).toBe(1);
    },
  );

  test('routes without a plan are open to every plan', async () => {
    const { status, error } = await send('free', 'GET');
    expect(status).toBe(503);
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
  });
});
