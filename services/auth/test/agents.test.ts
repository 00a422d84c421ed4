/**
 * Agents: a token minted for a dashboard agent is oidc-provider's own opaque token (introspected
 * like any other, with the agent's kind, name and limits), rests in the database only as a keyed
 * hash, and stops working the moment its agent is revoked, with an eviction event (also when an
 * operator command revokes it from another process). One owner can
 * neither see nor revoke another's agent. An OAuth consent makes the client an agent of the owner.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { EventSubjects } from '@pag/contracts';
import { createLogger } from '@pag/kit';
import { byOperator } from '../src/events/audit-decisions.ts';
import { openAuthStore } from '../src/operator/open-auth-store.ts';
import { createOwner, introspect, obtainTokens } from './support/oauth-client.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { RESOURCE_SERVER, startTestAuth } from './support/start-test-auth.ts';

const silent = createLogger({ service: 'agents-test', level: 'silent' });
let t: TestAuth;
let owner: string;
let other: string;
beforeAll(async () => {
  t = await startTestAuth();
  owner = await createOwner(t.db);
  other = await createOwner(t.db, { email: 'other@example.test', password: 'another long password' });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const answer = async (token: string) =>
  (await (await introspect(t.url, token, RESOURCE_SERVER)).json()) as Record<string, unknown>;

async function dashboardAgent(accountId = owner, overrides: Record<string, unknown> = {}) {
  const { agents } = t.auth.core;
  const agent = await agents.createAgent({
    accountId,
    kind: 'dashboard',
    name: 'CI bot',
    scopes: ['read', 'chat'],
    dailyLimit: 100,
    ...overrides,
  });
  return { agent, token: await agents.issueToken(agent) };
}

describe('a dashboard agent', () => {
  test('holds an opaque API token that introspects with the agent and its limits', async () => {
    const { agent, token } = await dashboardAgent();
    expect(token.value).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(await answer(token.value)).toMatchObject({
      active: true,
      client_id: agent.clientId,
      account_id: owner,
      sub: owner,
      aud: t.apiResource,
      scope: 'read chat',
      token_type: 'Bearer',
      plan: 'free',
      token_kind: 'dashboard',
      agent_id: agent.id,
      agent_name: 'CI bot',
      limit_daily: 100,
      limit_monthly: null,
    });
    const rows = await t.db.oidcPayload.findMany({
      where: { model: 'AccessToken', clientId: agent.clientId },
    });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token.value);
  });

  test('without an expiry its token lives ten years; with one, until then', async () => {
    const { token } = await dashboardAgent();
    expect(token.expiresAt.getTime()).toBeGreaterThan(Date.now() + 9 * 365 * 24 * 3600_000);
    const expiresAt = new Date(Date.now() + 3600_000);
    const short = await dashboardAgent(owner, { expiresAt });
    expect(Math.abs(short.token.expiresAt.getTime() - expiresAt.getTime())).toBeLessThan(2000);
  });

  test.each([
    [{ scopes: [] }, /at least one scope/],
    [{ scopes: ['everything'] }, /"everything" is not a scope/],
    [{ name: ' ' }, /name must have/],
    [{ dailyLimit: 0 }, /daily limit/],
    [{ monthlyLimit: 1.5 }, /monthly limit/],
    [{ expiresAt: new Date(Date.now() - 1000) }, /expiry must be in the future/],
  ])('%j is refused with a message naming the field', async (overrides, message) => {
    await expect(dashboardAgent(owner, overrides)).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringMatching(message),
    });
  });

  test('revoked: its token is inactive at once, an eviction event is published, revoking again is harmless', async () => {
    const { agent, token } = await dashboardAgent();
    const events: unknown[] = [];
    const subscription = await t.bus.subscribe(EventSubjects.tokenRevoked, async (message) => {
      events.push(message.data);
    });
    try {
      // Asked about first, so the token is kept in memory (store/recent-tokens.ts) when revoked.
      expect(await answer(token.value)).toMatchObject({ active: true });
      const revoked = await t.auth.core.agents.revoke(owner, agent.id, byOperator());
      expect(revoked.status).toBe('revoked');
      expect(await answer(token.value)).toEqual({ active: false });
      expect(events).toEqual([
        expect.objectContaining({ accountId: owner, clientId: agent.clientId, tokenSha256: null }),
      ]);
      await t.auth.core.agents.revoke(owner, agent.id, byOperator());
      await expect(t.auth.core.agents.issueToken(revoked)).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      await subscription.close();
    }
  });

  test('another owner can neither see nor revoke it', async () => {
    const { agent, token } = await dashboardAgent();
    const { agents } = t.auth.core;
    expect((await agents.list(other)).map((a) => a.id)).not.toContain(agent.id);
    await expect(agents.get(other, agent.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(agents.revoke(other, agent.id, byOperator())).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await answer(token.value)).toMatchObject({ active: true });
  });
});

describe('an OAuth client', () => {
  test('becomes an agent of the owner who consents, and its tokens say so', async () => {
    const { clientId, tokens } = await obtainTokens(t.url, { scope: 'read' });
    const agent = await t.auth.core.agents.findByClient(owner, clientId);
    expect(agent).toMatchObject({ kind: 'oauth', scopes: ['read'], status: 'active' });
    expect(await answer(tokens.access_token)).toMatchObject({
      active: true,
      token_kind: 'oauth',
      agent_id: agent?.id,
    });
    await t.auth.core.agents.revoke(owner, agent?.id ?? '', byOperator());
    expect(await answer(tokens.access_token)).toEqual({ active: false });
    // The client itself stays registered: other owners may use it.
    expect(await t.db.oidcPayload.count({ where: { model: 'Client', clientId } })).toBe(1);
  });
});

describe('a revocation made by an operator command (another process, same database)', () => {
  test('reaches the running service, which publishes the eviction on its bus', async () => {
    await using store = await openAuthStore({ config: t.config, publicUrl: t.url, logger: silent });
    const agent = await store.agents.createAgent({
      accountId: owner,
      kind: 'dashboard',
      name: 'cli',
      scopes: ['read'],
    });
    const token = await store.agents.issueToken(agent);
    expect(await answer(token.value)).toMatchObject({ active: true });
    const { promise: received, resolve } = Promise.withResolvers<unknown>();
    // Subscribed before revoking: an event published before the subscription exists is not seen.
    const subscription = await t.bus.subscribe(EventSubjects.tokenRevoked, async (message) => {
      resolve(message.data);
    });
    try {
      await store.agents.revoke(owner, agent.id, byOperator());
      // The relay is asynchronous (PostgreSQL NOTIFY, then the bus): awaited as an event, bounded
      // by the test's timeout rather than a guess of how long a loaded machine takes.
      expect(await received).toMatchObject({ accountId: owner, clientId: agent.clientId, tokenSha256: null });
      expect(await answer(token.value)).toEqual({ active: false });
    } finally {
      await subscription.close();
    }
  });
});
