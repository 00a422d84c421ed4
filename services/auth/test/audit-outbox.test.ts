/**
 * Owner and operator decisions reach the AUDIT stream through the outbox (docs/adr/0041): the
 * decision's transaction writes its event, the running service relays it (msgId = event id) and
 * deletes the row once the stream stored it.
 * - a dashboard approval yields one handshake.approve event, actor the owner, request id kept;
 * - a decision taken through the store while no service runs (as `pnpm pag …` does) leaves a row,
 *   which a service started later relays once;
 * - a stream that refuses the publish leaves the row for the next attempt.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ActionAuditEvent, HandshakeCreated } from '@pag/contracts';
import { AuthSubjects, MessageHeaders } from '@pag/contracts';
import { applyMigrations, createBus, createLogger, createMetrics } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { Browser, signUp } from '@pag/testkit';
import { authDatabase } from '../src/database.ts';
import { byOperator } from '../src/events/audit-decisions.ts';
import { openAuthStore } from '../src/operator/open-auth-store.ts';
import { startAuth } from '../src/service.ts';
import { auditInbox } from './support/audit-inbox.ts';
import type { TestAuth } from './support/start-test-auth.ts';
import { startTestAuth, testConfig } from './support/start-test-auth.ts';

const logger = createLogger({ service: 'audit-outbox-test', level: 'silent' });

describe('decisions on the dashboard', () => {
  let t: TestAuth;
  beforeAll(async () => {
    t = await startTestAuth();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  test('approving a handshake yields one handshake.approve event with the owner as actor', async () => {
    const inbox = await auditInbox(t.bus);
    const owner = new Browser(t.url);
    await signUp(owner, { email: 'owner@example.test', password: 'correct horse battery staple' });
    const account = await t.db.account.findUniqueOrThrow({ where: { email: 'owner@example.test' } });
    const created = await t.bus.request<HandshakeCreated>(
      AuthSubjects.handshakeCreate,
      {
        params: {},
        query: {},
        body: { agentId: 'calendar-bot@host', requestedScopes: ['read', 'availability'], message: 'Slots.' },
      },
      { timeoutMs: 10_000, headers: { [MessageHeaders.clientAddress]: '192.0.2.7' } },
    );
    const queue = await owner.open('/dashboard/handshakes');
    const requestId = `req-${randomUUID()}`;
    // The gateway's request id travels with the request; the event keeps it.
    owner.headers[MessageHeaders.requestId] = requestId;
    const shown = await owner.submit(
      queue,
      { scope_availability: '', daily: '100' },
      `${created.handshakeId}/approve`,
    );
    expect(shown.status).toBe(201);
    const token = /<p class="secret"[^>]*>([^<]+)<\/p>/.exec(shown.html)?.[1] ?? '';
    const event = await inbox.next('handshake.approve');
    const agent = await t.db.agent.findFirstOrThrow({ where: { accountId: account.id, kind: 'handshake' } });
    expect(event).toMatchObject({
      kind: 'action',
      source: 'auth',
      requestId,
      accountId: account.id,
      clientId: agent.clientId,
      agentId: agent.id,
      actor: { type: 'owner', id: account.id },
      action: 'handshake.approve',
      target: created.handshakeId,
      decision: 'allowed',
      reason: null,
      status: null,
      detail: { agentRef: 'calendar-bot@host', scopes: 'read', dailyLimit: 100, monthlyLimit: null },
    });
    expect(JSON.stringify(event)).not.toContain(token);
    await t.auth.auditRelay.wake();
    expect(inbox.events.filter((item) => item.action === 'handshake.approve')).toHaveLength(1);
    expect(await t.auth.core.auditOutbox.waiting()).toEqual([]);
  });

  test('sign-ups and sign-ins are recorded on the account, never with the email or password typed', async () => {
    const inbox = await auditInbox(t.bus);
    const browser = new Browser(t.url);
    await signUp(browser, { email: 'second@example.test', password: 'correct horse battery staple' });
    const account = await t.db.account.findUniqueOrThrow({ where: { email: 'second@example.test' } });
    expect(await inbox.next('owner.create', (event) => event.accountId === account.id)).toMatchObject({
      actor: { type: 'owner', id: account.id },
      detail: { plan: 'free' },
    });
    // Another browser: the first is signed in since its sign-up.
    const stranger = new Browser(t.url);
    const attempt = async (email: string, password: string) =>
      stranger.submit(await stranger.open('/login'), { email, password });
    expect((await attempt('second@example.test', 'a wrong password 1')).status).toBe(401);
    expect((await attempt('nobody@example.test', 'a wrong password 2')).status).toBe(401);
    await attempt('second@example.test', 'correct horse battery staple');
    const onAccount = (event: ActionAuditEvent) => event.accountId === account.id;
    expect(
      await inbox.next('owner.sign_in', (event) => onAccount(event) && event.decision === 'denied'),
    ).toMatchObject({ actor: { type: 'owner', id: account.id }, reason: 'WRONG_CREDENTIALS' });
    expect(await inbox.next('owner.sign_in', (event) => event.accountId === null)).toMatchObject({
      actor: { type: 'owner', id: null },
      decision: 'denied',
      reason: 'WRONG_CREDENTIALS',
    });
    expect(
      await inbox.next('owner.sign_in', (event) => onAccount(event) && event.decision === 'allowed'),
    ).toMatchObject({ target: account.id, reason: null });
    const text = JSON.stringify(inbox.events);
    for (const typed of ['nobody@example.test', 'a wrong password', 'correct horse'])
      expect(text).not.toContain(typed);
  });
});

describe('decisions taken while no service runs (pnpm pag …)', () => {
  let postgres: TestPostgres;
  // One deployment: the operator's commands and the service share its keys.
  let deployment: ReturnType<typeof testConfig>;
  beforeAll(async () => {
    postgres = await startTestPostgres();
    await applyMigrations({ databaseUrl: postgres.url, ...authDatabase });
    deployment = testConfig(postgres.url);
  }, 60_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  const config = () => deployment;

  /** As `pag token create` does: the operator makes a dashboard token with no stack running. */
  async function operatorCreatesToken(email: string) {
    await using store = await openAuthStore({ config: config(), publicUrl: 'http://pag.test', logger });
    const account = await store.accounts.create(
      {
        email,
        password: 'correct horse battery staple',
        plan: 'free',
      },
      byOperator(),
    );
    const agent = await store.agents.createAgent(
      { accountId: account.id, kind: 'dashboard', name: 'cron', scopes: ['read'] },
      byOperator(),
    );
    await store.agents.issueToken(agent);
    const waiting = await store.auditOutbox.waiting();
    return { account, agent, waiting };
  }

  test('leave their event in the outbox; a service started later relays it once', async () => {
    const { account, agent, waiting } = await operatorCreatesToken('operator-1@example.test');
    expect(waiting).toEqual([
      expect.objectContaining({
        action: 'owner.create',
        actor: { type: 'operator', id: null },
        accountId: account.id,
      }),
      expect.objectContaining({
        action: 'token.create',
        actor: { type: 'operator', id: null },
        accountId: account.id,
        target: agent.id,
        source: 'auth',
      }),
    ]);
    const bus = await createBus({ name: 'audit-outbox-test', logger });
    const inbox = await auditInbox(bus);
    const auth = await startAuth({
      config: config(),
      bus,
      logger,
      metrics: createMetrics({ defaultMetrics: false }),
    });
    try {
      const event = await inbox.next('token.create');
      expect(event.eventId).toBe(waiting[1]?.eventId);
      await auth.auditRelay.wake();
      expect(await auth.core.auditOutbox.waiting()).toEqual([]);
      expect(inbox.events.filter((item) => item.eventId === event.eventId)).toHaveLength(1);
    } finally {
      await auth.close();
      await bus.close();
    }
  });

  test('a stream that refuses the publish leaves the row for the next attempt', async () => {
    const { waiting } = await operatorCreatesToken('operator-2@example.test');
    expect(waiting.map((event) => event.action)).toEqual(['owner.create', 'token.create']);
    // No AUDIT stream yet (the gateway creates it): every publish is refused.
    const bus = await createBus({ name: 'audit-outbox-test', logger });
    const auth = await startAuth({
      config: config(),
      bus,
      logger,
      metrics: createMetrics({ defaultMetrics: false }),
    });
    try {
      await auth.auditRelay.wake();
      expect(await auth.core.auditOutbox.waiting()).toEqual(waiting);
      const inbox = await auditInbox(bus);
      await auth.auditRelay.wake();
      expect((await inbox.next('token.create')).eventId).toBe(waiting[1]?.eventId);
      expect(await auth.core.auditOutbox.waiting()).toEqual([]);
    } finally {
      await auth.close();
      await bus.close();
    }
  });
});
