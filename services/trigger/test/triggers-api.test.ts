/**
 * The agents' trigger API (TriggerEndpoints) asked as the gateway asks: create with the rights of
 * the design (an agent, `chat` and each service's read scope; a past `once` refused naming
 * schedule.date), list and get with the next run in UTC and local time, run now (a queued manual
 * run), the run history in pages, pause, resume (a stopped trigger re-checks its creator), delete;
 * who may act (the creator or `full`), and tenancy (another owner's trigger is 404 everywhere).
 * Every change is an audit action event without the prompt.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Trigger, TriggerList, TriggerRun, TriggerRunPage } from '@pag/contracts';
import { TriggerEndpoints, TriggerRun as TriggerRunSchema, Trigger as TriggerSchema } from '@pag/contracts';
import type { Caller, TestTrigger } from './support/start-test-trigger.ts';
import { startTestTrigger } from './support/start-test-trigger.ts';

const S = {
  create: TriggerEndpoints.triggersCreate.subject,
  list: TriggerEndpoints.triggersList.subject,
  get: TriggerEndpoints.triggerGet.subject,
  run: TriggerEndpoints.triggersRun.subject,
  runs: TriggerEndpoints.runsList.subject,
  pause: TriggerEndpoints.triggerPause.subject,
  resume: TriggerEndpoints.triggerResume.subject,
  remove: TriggerEndpoints.triggerDelete.subject,
};

const PROMPT = 'Summarise my unread GitHub notifications (secret-prompt-text).';

let t: TestTrigger;
beforeAll(async () => {
  t = await startTestTrigger();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const dailyBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Morning digest',
  kind: 'schedule',
  schedule: { type: 'daily', atHour: 8, atMinute: 30 },
  timezone: 'Europe/Berlin',
  actionType: 'ai_prompt',
  action: { prompt: PROMPT, services: ['github'] },
  ...extra,
});

const create = (caller: Caller, body: unknown = dailyBody()) => t.ask<Trigger>(S.create, caller, { body });
const withId = (subject: string, caller: Caller, id: string, query: Record<string, string> = {}) =>
  t.ask<unknown>(subject, caller, { params: { id }, query });

function owner(): { accountId: string; agent: Caller } {
  const accountId = randomUUID();
  return {
    accountId,
    agent: { accountId, agentId: `ag_${randomUUID().slice(0, 8)}`, scopes: 'chat services:github:read' },
  };
}

describe('create', () => {
  test('answers the trigger: the fields, active, the next run in UTC and local time, its creator and scopes', async () => {
    const { accountId, agent } = owner();
    const before = Date.now();
    const trigger = await create({ ...agent, requestId: 'req-create-1' });
    expect(TriggerSchema.parse(trigger)).toEqual(trigger);
    expect(trigger).toMatchObject({
      id: expect.stringMatching(/^trg_[A-Za-z0-9_-]{22}$/),
      name: 'Morning digest',
      kind: 'schedule',
      schedule: { type: 'daily', atHour: 8, atMinute: 30 },
      timezone: 'Europe/Berlin',
      actionType: 'ai_prompt',
      action: { prompt: PROMPT, services: ['github'], saveOutputToMemory: false },
      status: 'active',
      statusReason: null,
      createdBy: agent.agentId,
      scopes: ['chat', 'services:github:read'],
      lastRun: null,
    });
    const next = Date.parse(trigger.nextRunAt ?? '');
    expect(next).toBeGreaterThan(before);
    expect(next - before).toBeLessThanOrEqual(24 * 3_600_000);
    // 08:30 in Berlin, with Berlin's offset, the same instant.
    expect(trigger.nextRunAtLocal).toMatch(/T08:30:00\.000\+0[12]:00$/);
    expect(Date.parse(trigger.nextRunAtLocal ?? '')).toBe(next);
    const row = await t.db.trigger.findUniqueOrThrow({ where: { id: trigger.id } });
    expect(row).toMatchObject({ accountId, createdByClient: null, anchorAt: null });

    const event = await t.auditOf('req-create-1');
    expect(event).toMatchObject({
      source: 'trigger',
      action: 'trigger.create',
      accountId,
      actor: { type: 'agent', id: agent.agentId },
      target: trigger.id,
      decision: 'allowed',
    });
    expect(JSON.stringify(event)).not.toContain('secret-prompt-text');
  });

  test('an interval trigger keeps its first run as its anchor', async () => {
    const { agent } = owner();
    const trigger = await create(
      agent,
      dailyBody({ schedule: { type: 'interval', intervalMinutes: 90, atHour: 6, atMinute: 0 } }),
    );
    const row = await t.db.trigger.findUniqueOrThrow({ where: { id: trigger.id } });
    expect(row.anchorAt?.toISOString()).toBe(trigger.nextRunAt);
  });

  test('a token without an agent is 403 AGENT_REQUIRED; nothing is stored', async () => {
    const accountId = randomUUID();
    await expect(create({ accountId, scopes: 'full' })).rejects.toMatchObject({
      code: 'AGENT_REQUIRED',
      status: 403,
    });
    expect(await t.db.trigger.count({ where: { accountId } })).toBe(0);
  });

  test('a chat-only token cannot create a trigger reading github: 403 naming services:github:read', async () => {
    const { accountId, agent } = owner();
    await expect(create({ ...agent, scopes: 'chat' })).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      message: expect.stringContaining('services:github:read'),
    });
    await expect(create({ ...agent, scopes: 'services:read' })).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      message: expect.stringContaining('scope chat'),
    });
    expect(await t.db.trigger.count({ where: { accountId } })).toBe(0);
    // services:read covers every service; full covers all.
    await expect(create({ ...agent, scopes: 'chat services:read' })).resolves.toMatchObject({
      status: 'active',
    });
    await expect(create({ ...agent, scopes: 'full' })).resolves.toMatchObject({ scopes: ['full'] });
  });

  test('invalid bodies are 400s naming the field', async () => {
    const { agent } = owner();
    const cases: [unknown, string][] = [
      [
        dailyBody({ schedule: { type: 'once', date: '2020-01-01', atHour: 9, atMinute: 0 } }),
        'schedule.date',
      ],
      [dailyBody({ timezone: 'Mars/Olympus' }), 'body.timezone'],
      [
        dailyBody({ schedule: { type: 'interval', intervalMinutes: 4, atHour: 9, atMinute: 0 } }),
        'body.schedule.intervalMinutes',
      ],
      [
        dailyBody({ schedule: { type: 'monthly', dayOfMonth: 32, atHour: 9, atMinute: 0 } }),
        'body.schedule.dayOfMonth',
      ],
      [dailyBody({ schedule: { type: 'daily', atHour: 24, atMinute: 0 } }), 'body.schedule.atHour'],
      [dailyBody({ actionType: 'webhook' }), 'body.actionType'],
      [dailyBody({ action: { prompt: 'x', services: ['github', 'github'] } }), 'body.action.services'],
      [dailyBody({ name: '' }), 'body.name'],
    ];
    for (const [body, field] of cases) {
      await expect(create(agent, body)).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        status: 400,
        message: expect.stringContaining(field),
      });
    }
  });
});

describe('list, get, run now, runs', () => {
  test('any token of the owner lists and reads every trigger, newest first, with next and last run', async () => {
    const { accountId, agent } = owner();
    const first = await create(agent);
    const second = await create(agent, dailyBody({ name: 'Second' }));
    const otherAgent = { accountId, agentId: 'ag_other', scopes: '' };
    const { triggers } = await t.ask<TriggerList>(S.list, otherAgent);
    expect(triggers.map((trigger) => trigger.id)).toEqual([second.id, first.id]);
    expect(await withId(S.get, otherAgent, first.id)).toEqual(first);
  });

  test('run now queues a manual run for now (202 body) that shows in the runs and as lastRun', async () => {
    const { agent } = owner();
    const trigger = await create(agent);
    const before = Date.now();
    const run = (await withId(S.run, { ...agent, requestId: 'req-run-now' }, trigger.id)) as TriggerRun;
    expect(TriggerRunSchema.parse(run)).toEqual(run);
    expect(run).toMatchObject({
      runId: expect.stringMatching(/^run_/),
      triggerId: trigger.id,
      status: 'queued',
    });
    expect(Date.parse(run.queuedAt)).toBeGreaterThanOrEqual(before - 5);
    const row = await t.db.run.findUniqueOrThrow({ where: { id: run.runId } });
    expect(row).toMatchObject({ cause: 'manual', status: 'queued', attempts: 0, late: false });
    expect(row.scheduledFor.toISOString()).toBe(run.queuedAt);
    const page = (await withId(S.runs, agent, trigger.id)) as TriggerRunPage;
    expect(page).toEqual({
      runs: [
        expect.objectContaining({
          id: run.runId,
          cause: 'manual',
          status: 'queued',
          scheduledFor: run.queuedAt,
          startedAt: null,
          output: null,
          error: null,
        }),
      ],
      nextCursor: null,
    });
    expect(((await withId(S.get, agent, trigger.id)) as Trigger).lastRun?.id).toBe(run.runId);
    expect((await t.auditOf('req-run-now')).action).toBe('trigger.run_now');
  });

  test('the run history pages newest first with a cursor; a foreign cursor is a 400', async () => {
    const { agent } = owner();
    const trigger = await create(agent);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(((await withId(S.run, agent, trigger.id)) as TriggerRun).runId);
    const newestFirst = [...ids].reverse();
    const one = (await withId(S.runs, agent, trigger.id, { limit: '2' })) as TriggerRunPage;
    expect(one.runs.map((run) => run.id)).toEqual(newestFirst.slice(0, 2));
    const two = (await withId(S.runs, agent, trigger.id, {
      limit: '2',
      cursor: one.nextCursor ?? '',
    })) as TriggerRunPage;
    expect(two.runs.map((run) => run.id)).toEqual(newestFirst.slice(2, 4));
    const three = (await withId(S.runs, agent, trigger.id, {
      limit: '2',
      cursor: two.nextCursor ?? '',
    })) as TriggerRunPage;
    expect(three).toEqual({ runs: [expect.objectContaining({ id: newestFirst[4] })], nextCursor: null });
    await expect(withId(S.runs, agent, trigger.id, { cursor: 'abc' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('cursor'),
    });
    await expect(withId(S.runs, agent, trigger.id, { limit: '101' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('limit'),
    });
  });
});

describe('pause, resume, delete', () => {
  test('pause: paused, nothing scheduled; resume: active, the next run from now; both idempotent', async () => {
    const { agent } = owner();
    const trigger = await create(agent);
    const paused = (await withId(S.pause, { ...agent, requestId: 'req-pause' }, trigger.id)) as Trigger;
    expect(paused).toMatchObject({ status: 'paused', nextRunAt: null, nextRunAtLocal: null });
    expect(await withId(S.pause, agent, trigger.id)).toMatchObject({ status: 'paused' });
    expect(await t.auditOf('req-pause')).toMatchObject({ action: 'trigger.pause', target: trigger.id });
    // A paused trigger still runs on demand.
    await expect(withId(S.run, agent, trigger.id)).resolves.toMatchObject({ status: 'queued' });
    const resumed = (await withId(S.resume, { ...agent, requestId: 'req-resume' }, trigger.id)) as Trigger;
    expect(resumed).toMatchObject({ status: 'active', nextRunAt: trigger.nextRunAt });
    expect(await withId(S.resume, agent, trigger.id)).toMatchObject({ status: 'active' });
    expect(await t.auditOf('req-resume')).toMatchObject({ action: 'trigger.resume' });
    // Resuming asked nobody: only a stopped trigger re-checks its creator.
    expect(t.grants.asked).not.toContain(agent.agentId);
  });

  test('a stopped trigger resumes only when its creator is active and holds what it needs', async () => {
    const { accountId, agent } = owner();
    const trigger = await create(agent);
    await t.db.trigger.update({
      where: { id: trigger.id },
      data: { status: 'stopped', statusReason: 'its creator agent was revoked', nextRunAt: null },
    });
    const agentId = agent.agentId ?? '';
    await expect(withId(S.pause, agent, trigger.id)).rejects.toMatchObject({ code: 'CONFLICT' });

    t.grants.set(accountId, agentId, { status: 'revoked', scopes: [] });
    await expect(withId(S.resume, agent, trigger.id)).rejects.toMatchObject({
      code: 'CONFLICT',
      status: 409,
      message: expect.stringContaining('revoked'),
    });
    t.grants.set(accountId, agentId, { status: 'active', scopes: ['chat'] });
    await expect(withId(S.resume, agent, trigger.id)).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      message: expect.stringContaining('services:github:read'),
    });
    expect(await withId(S.get, agent, trigger.id)).toMatchObject({ status: 'stopped', nextRunAt: null });

    t.grants.set(accountId, agentId, { status: 'active', scopes: ['chat', 'services:github:read'] });
    const resumed = (await withId(S.resume, agent, trigger.id)) as Trigger;
    expect(resumed).toMatchObject({ status: 'active', statusReason: null });
    expect(Date.parse(resumed.nextRunAt ?? '')).toBeGreaterThan(Date.now());
  });

  test('a completed once trigger has nothing to pause or resume (409)', async () => {
    const { agent } = owner();
    const trigger = await create(
      agent,
      dailyBody({ schedule: { type: 'once', date: '2099-01-01', atHour: 9, atMinute: 0 } }),
    );
    await t.db.trigger.update({ where: { id: trigger.id }, data: { status: 'completed', nextRunAt: null } });
    await expect(withId(S.resume, agent, trigger.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(withId(S.pause, agent, trigger.id)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  test('delete removes the trigger and its runs; afterwards it is 404', async () => {
    const { agent } = owner();
    const trigger = await create(agent);
    await withId(S.run, agent, trigger.id);
    expect(await withId(S.remove, { ...agent, requestId: 'req-delete' }, trigger.id)).toEqual({
      id: trigger.id,
      deleted: true,
    });
    expect(await t.db.run.count({ where: { triggerId: trigger.id } })).toBe(0);
    for (const subject of [S.get, S.runs, S.run, S.pause, S.resume, S.remove])
      await expect(withId(subject, agent, trigger.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const event = await t.auditOf('req-delete');
    expect(event).toMatchObject({ action: 'trigger.delete', target: trigger.id });
    expect(JSON.stringify(event)).not.toContain('secret-prompt-text');
  });
});

describe('who may act on a trigger', () => {
  test('another agent of the owner reads it but may not run, pause, resume or delete it; a full token may', async () => {
    const { accountId, agent } = owner();
    const trigger = await create(agent);
    const other: Caller = { accountId, agentId: 'ag_someone_else', scopes: 'chat services:github:read' };
    await expect(withId(S.get, other, trigger.id)).resolves.toMatchObject({ id: trigger.id });
    await expect(withId(S.runs, other, trigger.id)).resolves.toMatchObject({ runs: [] });
    for (const subject of [S.run, S.pause, S.resume, S.remove]) {
      await expect(withId(subject, other, trigger.id)).rejects.toMatchObject({
        code: 'INSUFFICIENT_SCOPE',
        message: expect.stringContaining('Only the agent that created trigger'),
      });
    }
    expect(await t.db.run.count({ where: { triggerId: trigger.id } })).toBe(0);
    const full: Caller = { accountId, agentId: 'ag_admin', scopes: 'full' };
    await expect(withId(S.pause, full, trigger.id)).resolves.toMatchObject({ status: 'paused' });
    await expect(withId(S.run, full, trigger.id)).resolves.toMatchObject({ status: 'queued' });
    await expect(withId(S.remove, full, trigger.id)).resolves.toMatchObject({ deleted: true });
  });

  test("owner B's agent cannot list, get, run, pause, resume, delete or read the runs of A's trigger", async () => {
    const a = owner();
    const b = owner();
    const trigger = await create(a.agent);
    await withId(S.run, a.agent, trigger.id);
    // Even with full, and even as an agent id equal to A's creator.
    for (const caller of [
      { ...b.agent, scopes: 'full' },
      { ...b.agent, agentId: a.agent.agentId },
    ]) {
      expect(await t.ask<TriggerList>(S.list, caller)).toEqual({ triggers: [] });
      for (const subject of [S.get, S.runs, S.run, S.pause, S.resume, S.remove])
        await expect(withId(subject, caller, trigger.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(await withId(S.get, a.agent, trigger.id)).toMatchObject({ status: 'active' });
    expect(await t.db.run.count({ where: { triggerId: trigger.id } })).toBe(1);
  });
});
