/**
 * auth.agents.grant: before each run of a trigger, the trigger service learns what the creating
 * agent may still do: its status now (an agent past its expiry is expired even while its row
 * says active), its scopes (none unless active), its limits and the owner's plan as it is now.
 * Tenancy: an agent is looked up within the account named, so another owner's agent is unknown
 * and tells nothing about itself.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AgentGrant } from '@pag/contracts';
import { AppError, AuthEndpoints } from '@pag/contracts';
import { requestEndpoint } from '@pag/kit';
import { byOperator } from '../src/events/audit-decisions.ts';
import { createOwner } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth } from './support/start-test-auth.ts';

let t: TestAuth;
let owner: string;
let other: string;
beforeAll(async () => {
  t = await startTestAuth();
  owner = await createOwner(t.db);
  other = await createOwner(t.db, { email: 'grant-other@example.test', password: 'another long password' });
  await t.db.account.update({ where: { id: owner }, data: { plan: 'pro' } });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const grant = (accountId: string, agentId: string): Promise<AgentGrant> =>
  requestEndpoint(t.bus, AuthEndpoints.agentGrant, { accountId, agentId }, { timeoutMs: 10_000 });

async function newAgent(accountId = owner, overrides: { expiresAt?: Date } = {}) {
  return t.auth.core.agents.createAgent({
    accountId,
    kind: 'dashboard',
    name: 'Digest bot',
    scopes: ['chat', 'services:github:read'],
    dailyLimit: 50,
    monthlyLimit: 900,
    ...overrides,
  });
}

const UNKNOWN = {
  status: 'unknown',
  clientId: null,
  scopes: [],
  limits: { daily: null, monthly: null },
  plan: null,
};

describe('the grant of an agent', () => {
  test('active: its scopes, limits, client and the owner plan', async () => {
    const agent = await newAgent();
    expect(await grant(owner, agent.id)).toEqual({
      agentId: agent.id,
      status: 'active',
      clientId: agent.clientId,
      scopes: ['chat', 'services:github:read'],
      limits: { daily: 50, monthly: 900 },
      plan: 'pro',
    });
  });

  test('the plan is the owner’s now: a downgrade shows at the next grant', async () => {
    const agent = await newAgent();
    await t.db.account.update({ where: { id: owner }, data: { plan: 'free' } });
    try {
      expect((await grant(owner, agent.id)).plan).toBe('free');
    } finally {
      await t.db.account.update({ where: { id: owner }, data: { plan: 'pro' } });
    }
  });

  test('revoked: no scopes left', async () => {
    const agent = await newAgent();
    await t.auth.core.agents.revoke(owner, agent.id, byOperator());
    expect(await grant(owner, agent.id)).toEqual({
      agentId: agent.id,
      status: 'revoked',
      clientId: agent.clientId,
      scopes: [],
      limits: { daily: 50, monthly: 900 },
      plan: 'pro',
    });
  });

  test('expired: past its expiry while its row still says active', async () => {
    const agent = await newAgent(owner, { expiresAt: new Date(Date.now() + 60_000) });
    expect((await grant(owner, agent.id)).status).toBe('active');
    await t.db.agent.update({ where: { id: agent.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await t.db.agent.findUnique({ where: { id: agent.id } })).toMatchObject({ status: 'active' });
    expect(await grant(owner, agent.id)).toMatchObject({ status: 'expired', scopes: [] });
  });

  test('deleted (no such agent): unknown', async () => {
    expect(await grant(owner, 'ag_gone')).toEqual({ agentId: 'ag_gone', ...UNKNOWN });
  });
});

describe('tenancy', () => {
  test("another owner's agent is unknown, whatever it holds", async () => {
    const theirs = await newAgent(other);
    expect(await grant(owner, theirs.id)).toEqual({ agentId: theirs.id, ...UNKNOWN });
    expect((await grant(other, theirs.id)).status).toBe('active');
  });

  test('an account that does not exist learns nothing', async () => {
    const agent = await newAgent();
    expect(await grant('00000000-0000-4000-8000-000000000000', agent.id)).toEqual({
      agentId: agent.id,
      ...UNKNOWN,
    });
  });

  test.each([
    ['a malformed account id', { accountId: 'not-a-uuid', agentId: 'ag_x' }],
    ['a malformed agent id', { accountId: '00000000-0000-4000-8000-000000000000', agentId: "' OR 1=1" }],
    ['no body', null],
  ])('%s is INVALID_REQUEST', async (_name, body) => {
    const failure = await t.bus
      .request(AuthEndpoints.agentGrant.subject, body, { timeoutMs: 10_000 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe('INVALID_REQUEST');
  });
});
