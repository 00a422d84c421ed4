/**
 * The issue's acceptance on the embedded stack (`scripts/start`'s process): an owner on the pro
 * plan with a `full` token creates a daily trigger over HTTP, lists it with its next run (UTC and
 * local), runs it now (202 with the run id), and follows the run in GET /api/v1/triggers/:id/runs
 * until it succeeded with the offline brain's output (no model is configured). The same owner's
 * `chat`-only token cannot create a trigger reading github (403 naming services:github:read); a
 * free owner gets 403 PLAN_REQUIRED. The whole chain: gateway → trigger service → scheduler →
 * auth.agents.grant → gateway.usage.charge → brain.prompt.run.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Trigger, TriggerList, TriggerRun, TriggerRunPage } from '@pag/contracts';
import { TriggerRunPage as TriggerRunPageSchema, Trigger as TriggerSchema } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { eventually } from '../packages/kit/src/testing/mod.ts';
import { pagCommand } from '../packages/stack/test/support/pag.ts';

const PRO = 'pro.trigger@story.test';
const FREE = 'free.trigger@story.test';

let stack: StackProcess;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStackProcess();
  const pag = pagCommand(() => stack.dataDir);
  for (const [email, plan] of [
    [PRO, 'pro'],
    [FREE, 'free'],
  ] as const) {
    const owner = await pag(
      'owner',
      'create',
      '--email',
      email,
      '--password',
      'trigger story pass',
      '--plan',
      plan,
    );
    expect(owner.code).toBe(0);
    const full = await pag('token', 'create', '--owner', email, '--name', 'full', '--scopes', 'full');
    expect(full.code).toBe(0);
    tokens[`${email} full`] = full.out.at(-1) ?? '';
  }
  const chat = await pag('token', 'create', '--owner', PRO, '--name', 'chat only', '--scopes', 'chat');
  expect(chat.code).toBe(0);
  tokens[`${PRO} chat`] = chat.out.at(-1) ?? '';
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

const api = (token: string, method: string, path: string, body?: unknown) =>
  fetch(`${stack.url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const daily = (services: string[]) => ({
  name: 'Morning summary',
  kind: 'schedule',
  schedule: { type: 'daily', atHour: 8, atMinute: 0 },
  timezone: 'Europe/Berlin',
  actionType: 'ai_prompt',
  action: { prompt: 'Summarise what I should know this morning.', services },
});

describe('a pro owner with a full token', () => {
  test('creates a daily trigger, lists it, runs it now and reads the run with its output', async () => {
    const token = tokens[`${PRO} full`] ?? '';
    const created = await api(token, 'POST', '/triggers', daily([]));
    expect(created.status).toBe(201);
    const trigger = TriggerSchema.parse(await created.json()) as Trigger;
    expect(trigger).toMatchObject({ status: 'active', kind: 'schedule', lastRun: null });
    expect(trigger.nextRunAtLocal).toMatch(/T08:00:00\.000\+0[12]:00$/);

    const listed = await api(token, 'GET', '/triggers');
    expect(listed.status).toBe(200);
    const { triggers } = (await listed.json()) as TriggerList;
    expect(triggers).toEqual([
      expect.objectContaining({
        id: trigger.id,
        nextRunAt: trigger.nextRunAt,
        nextRunAtLocal: trigger.nextRunAtLocal,
      }),
    ]);

    const ran = await api(token, 'POST', `/triggers/${trigger.id}/run`);
    expect(ran.status).toBe(202);
    const run = (await ran.json()) as TriggerRun;
    expect(run).toMatchObject({
      runId: expect.stringMatching(/^run_/),
      triggerId: trigger.id,
      status: 'queued',
    });

    const finished = await eventually(
      async () => {
        const page = TriggerRunPageSchema.parse(
          await (await api(token, 'GET', `/triggers/${trigger.id}/runs`)).json(),
        ) as TriggerRunPage;
        const found = page.runs.find((item) => item.id === run.runId);
        return found !== undefined && (found.status === 'succeeded' || found.status === 'failed')
          ? found
          : false;
      },
      { what: 'the run finished', timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(finished).toMatchObject({
      cause: 'manual',
      status: 'succeeded',
      attempts: 1,
      model: 'offline',
      error: null,
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
    });
    // The offline brain says so: no model is configured, so it only quotes the owner's own data.
    expect(finished.output).toContain('No language model is configured');
    const after = (await (await api(token, 'GET', `/triggers/${trigger.id}`)).json()) as Trigger;
    expect(after.lastRun).toMatchObject({ id: run.runId, status: 'succeeded' });
  });
});

describe('refusals', () => {
  test('a chat-only token cannot create a trigger reading github: 403 naming services:github:read', async () => {
    const response = await api(tokens[`${PRO} chat`] ?? '', 'POST', '/triggers', daily(['github']));
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { code: string; message: string; hint: string } };
    expect(body.error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      message: expect.stringContaining('services:github:read'),
      hint: expect.any(String),
    });
  });

  test('a free owner gets 403 PLAN_REQUIRED with a hint; the owner has no trigger', async () => {
    const token = tokens[`${FREE} full`] ?? '';
    const response = await api(token, 'POST', '/triggers', daily([]));
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string; hint: string } }).error).toMatchObject({
      code: 'PLAN_REQUIRED',
      hint: expect.stringContaining('Pro'),
    });
    expect(await (await api(token, 'GET', '/triggers')).json()).toEqual({ triggers: [] });
  });
});
