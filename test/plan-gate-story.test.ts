/**
 * The plan gate end to end: the auth service states each owner's plan in its introspection
 * answers, and the gateway refuses creating a trigger to a `free` owner (403 PLAN_REQUIRED with
 * its hint) while a `pro` owner's request passes to dispatch. One nats-server, one PostgreSQL, the
 * auth service and a gateway replica; no trigger service runs here, so a request past the gate is
 * the dispatch's 503 naming it.
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { TriggerCreateRequest } from '@pag/contracts';
import { ErrorBody, ErrorCatalogue } from '@pag/contracts';
import { createLogger } from '../packages/kit/src/mod.ts';
import type { RunningAuth } from '../services/auth/src/mod.ts';
import { byOperator } from '../services/auth/src/mod.ts';
import type { AuthOnNats, GatewayReplica } from './support/auth-on-nats.ts';
import { startAuthOnNats, startGatewayReplica } from './support/auth-on-nats.ts';

const PUBLIC_URL = 'https://api.example.test';
const logger = createLogger({ service: 'plan-gate-story-test', level: 'silent' });

const DAILY_DIGEST: TriggerCreateRequest = {
  name: 'Morning digest',
  kind: 'schedule',
  schedule: { type: 'daily', atHour: 8, atMinute: 30 },
  timezone: 'Europe/Berlin',
  actionType: 'ai_prompt',
  action: { prompt: 'Summarise what happened overnight.', services: [] },
};

let env: AuthOnNats;
let auth: RunningAuth;
let gateway: GatewayReplica;

beforeAll(async () => {
  env = await startAuthOnNats({ publicUrl: PUBLIC_URL, logger });
  ({ auth } = env);
  gateway = await startGatewayReplica(env, { name: 'gateway', publicUrl: PUBLIC_URL, logger });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await env?.close();
});

/** A `full` dashboard token of an agent of `accountId`. */
async function fullToken(accountId: string): Promise<string> {
  const { agents } = auth.core;
  const agent = await agents.createAgent({ accountId, kind: 'dashboard', name: 'Planner', scopes: ['full'] });
  return (await agents.issueToken(agent)).value;
}

async function createTrigger(token: string) {
  const response = await fetch(`${gateway.url}/api/v1/triggers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(DAILY_DIGEST),
  });
  return { status: response.status, error: ErrorBody.parse(await response.json()).error };
}

test('a free owner gets 403 PLAN_REQUIRED with its hint; a pro owner passes the gate', async () => {
  // The owner startAuthOnNats made is on the default plan, free.
  const free = await createTrigger(await fullToken(env.accountId));
  expect(free.status).toBe(403);
  expect(free.error).toMatchObject({ code: 'PLAN_REQUIRED', hint: ErrorCatalogue.PLAN_REQUIRED.hint });
  expect(free.error.message).toContain("the owner's plan is free");

  const pro = await auth.core.accounts.create(
    { email: 'pro@example.test', password: 'correct horse battery staple', plan: 'pro' },
    byOperator(),
  );
  const passed = await createTrigger(await fullToken(pro.id));
  expect(passed.status).toBe(503);
  expect(passed.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(passed.error.message).toContain('trigger');
});
