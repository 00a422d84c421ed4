/**
 * `pag trigger list|pause|resume|delete` against the data of a running stack: triggers made over
 * HTTP by an agent are listed with their schedule in words, next run and creator; pause, resume
 * and delete change what the API shows; a stopped trigger whose creator was revoked does not
 * resume (the creator read from the auth store as auth.agents.grant reads it). An owner named by
 * email reaches only its own triggers; mistakes are one line, exit code 2.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { OwnerTrigger, Trigger } from '@pag/contracts';
import { OwnerTrigger as OwnerTriggerSchema } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import pg from 'pg';
import { pagCommand } from './support/pag.ts';

const ALICE = 'alice.triggers@example.test';
const BOB = 'bob.triggers@example.test';

let stack: StackProcess;
const pag = pagCommand(() => stack.dataDir);
const tokens: Record<string, string> = {};
const agents: Record<string, string> = {};

beforeAll(async () => {
  stack = await startStackProcess();
  for (const email of [ALICE, BOB]) {
    const owner = await pag(
      'owner',
      'create',
      '--email',
      email,
      '--password',
      'a long enough pass',
      '--plan',
      'pro',
    );
    expect(owner.code).toBe(0);
    const created = await pag('token', 'create', '--owner', email, '--name', 'bot', '--scopes', 'full');
    expect(created.code).toBe(0);
    tokens[email] = created.out.at(-1) ?? '';
    const listed = await pag('agent', 'list', '--owner', email, '--json');
    agents[email] = (JSON.parse(listed.out.join('\n')) as { id: string }[])[0]?.id ?? '';
  }
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

async function createTrigger(owner: string, name: string): Promise<Trigger> {
  const response = await fetch(`${stack.url}/api/v1/triggers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[owner]}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name,
      kind: 'schedule',
      schedule: { type: 'daily', atHour: 7, atMinute: 15 },
      timezone: 'America/New_York',
      actionType: 'ai_prompt',
      action: { prompt: 'What is on today?', services: [] },
    }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as Trigger;
}

async function getTrigger(owner: string, id: string): Promise<Trigger> {
  const response = await fetch(`${stack.url}/api/v1/triggers/${id}`, {
    headers: { authorization: `Bearer ${tokens[owner]}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Trigger;
}

/** The stack's own database (stack.json), for what no command does: stopping a trigger. */
async function sql(text: string, values: unknown[]): Promise<void> {
  const { databaseUrl } = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')) as {
    databaseUrl: string;
  };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

describe('pag trigger', () => {
  test('list: each trigger with its status, schedule in words, next run and creator; --json the owner view', async () => {
    const trigger = await createTrigger(ALICE, 'Daily plan');
    const listed = await pag('trigger', 'list', '--owner', ALICE);
    expect(listed).toMatchObject({ code: 0, err: [] });
    expect(listed.out).toEqual([
      [
        trigger.id,
        'active',
        '"Daily plan"',
        'every day at 07:15 (America/New_York)',
        `next ${trigger.nextRunAtLocal}`,
        `by ${agents[ALICE]}`,
        'no runs',
      ].join('  '),
      `1 triggers of ${ALICE}`,
    ]);
    const json = await pag('trigger', 'list', '--owner', ALICE, '--json');
    const views = json.out.map((line) => OwnerTriggerSchema.parse(JSON.parse(line)) as OwnerTrigger);
    expect(views).toEqual([
      expect.objectContaining({ id: trigger.id, recentRuns: [], createdBy: agents[ALICE] }),
    ]);
    // Bob sees none of Alice's.
    expect((await pag('trigger', 'list', '--owner', BOB)).out).toEqual([`0 triggers of ${BOB}`]);
  });

  test("pause, resume and delete change what the API shows; another owner's id is unknown", async () => {
    const trigger = await createTrigger(ALICE, 'To pause');
    expect(await pag('trigger', 'pause', '--owner', BOB, '--id', trigger.id)).toEqual({
      code: 2,
      out: [],
      err: [`pag: no trigger ${trigger.id} of ${BOB}`],
    });
    const paused = await pag('trigger', 'pause', '--owner', ALICE, '--id', trigger.id);
    expect(paused).toMatchObject({ code: 0, err: [] });
    expect(paused.out[0]).toMatch(new RegExp(`^paused ${trigger.id}  paused  "To pause"`));
    expect(await getTrigger(ALICE, trigger.id)).toMatchObject({ status: 'paused', nextRunAt: null });

    const resumed = await pag('trigger', 'resume', '--owner', ALICE, '--id', trigger.id, '--json');
    expect(resumed).toMatchObject({ code: 0, err: [] });
    expect(JSON.parse(resumed.out[0] ?? '')).toMatchObject({ id: trigger.id, status: 'active' });
    expect(await getTrigger(ALICE, trigger.id)).toMatchObject({
      status: 'active',
      nextRunAt: trigger.nextRunAt,
    });

    expect(await pag('trigger', 'delete', '--owner', ALICE, '--id', trigger.id)).toEqual({
      code: 0,
      out: [`deleted ${trigger.id} and its runs`],
      err: [],
    });
    const gone = await fetch(`${stack.url}/api/v1/triggers/${trigger.id}`, {
      headers: { authorization: `Bearer ${tokens[ALICE]}` },
    });
    expect(gone.status).toBe(404);
    expect((await pag('trigger', 'delete', '--owner', ALICE)).code).toBe(2);
  });

  test('a stopped trigger whose creator was revoked does not resume: one line, exit code 2', async () => {
    const trigger = await createTrigger(BOB, 'Revoked creator');
    await sql(
      `UPDATE "trigger"."triggers" SET status = 'stopped', status_reason = 'its creator agent was revoked', next_run_at = NULL WHERE id = $1`,
      [trigger.id],
    );
    expect((await pag('token', 'revoke', '--owner', BOB, '--agent', agents[BOB] ?? '')).code).toBe(0);
    const refused = await pag('trigger', 'resume', '--owner', BOB, '--id', trigger.id);
    expect(refused).toMatchObject({ code: 2, out: [] });
    expect(refused.err).toEqual([
      expect.stringMatching(/^pag: Trigger \S+ cannot resume: its creator agent \S+ is revoked\.$/),
    ]);
    const listed = await pag('trigger', 'list', '--owner', BOB);
    expect(listed.out[0]).toContain('stopped');
    expect(listed.out[0]).toContain('(its creator agent was revoked)');
  });
});
