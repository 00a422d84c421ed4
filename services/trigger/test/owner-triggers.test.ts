/**
 * The owner's side (TriggerOwnerEndpoints, asked by the auth service for /dashboard/triggers):
 * every trigger of the named account with its newest runs and its schedule in words; pause,
 * resume, delete, run now and the memory switch, whoever created the trigger, each an audit
 * event with the owner as actor. Only the named account is touched: another's id is 404.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Trigger } from '@pag/contracts';
import { TriggerEndpoints, TriggerOwnerEndpoints } from '@pag/contracts';
import type { TestTrigger } from './support/start-test-trigger.ts';
import { startTestTrigger } from './support/start-test-trigger.ts';

let t: TestTrigger;
beforeAll(async () => {
  t = await startTestTrigger();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

async function createFor(accountId: string, name = 'Weekly report'): Promise<Trigger> {
  return t.ask<Trigger>(
    TriggerEndpoints.triggersCreate.subject,
    { accountId, agentId: 'ag_creator', scopes: 'chat' },
    {
      body: {
        name,
        kind: 'schedule',
        schedule: { type: 'weekly', weekday: 'monday', atHour: 8, atMinute: 30 },
        timezone: 'Europe/Berlin',
        actionType: 'ai_prompt',
        action: { prompt: 'Plan my week.', services: [] },
      },
    },
  );
}

describe('trigger.owner-triggers.*', () => {
  test('list: every trigger with its newest runs (as many as asked) and its schedule in words', async () => {
    const accountId = randomUUID();
    const trigger = await createFor(accountId);
    const runIds: string[] = [];
    for (let i = 0; i < 3; i += 1)
      runIds.push((await t.askOwner(TriggerOwnerEndpoints.run, { accountId, id: trigger.id })).runId);
    const { triggers } = await t.askOwner(TriggerOwnerEndpoints.list, { accountId, runs: 2 });
    expect(triggers).toHaveLength(1);
    expect(triggers[0]).toMatchObject({
      id: trigger.id,
      createdBy: 'ag_creator',
      scheduleText: 'every Monday at 08:30 (Europe/Berlin)',
      lastRun: expect.objectContaining({ id: runIds[2], cause: 'manual', status: 'queued' }),
    });
    expect(triggers[0]?.recentRuns.map((run) => run.id)).toEqual([runIds[2], runIds[1]]);
    const none = await t.askOwner(TriggerOwnerEndpoints.list, { accountId, runs: 0 });
    expect(none.triggers[0]).toMatchObject({
      recentRuns: [],
      lastRun: expect.objectContaining({ id: runIds[2] }),
    });
  });

  test('pause, resume, memory, run and delete act on any trigger of the account, audited with the owner as actor', async () => {
    const accountId = randomUUID();
    const trigger = await createFor(accountId);
    const act = async <E extends Parameters<typeof t.askOwner>[0]>(
      endpoint: E,
      input: Parameters<typeof t.askOwner<E>>[1],
      action: string,
    ) => {
      const requestId = `req-owner-${randomUUID()}`;
      const reply = await t.askOwner(endpoint, input, requestId);
      expect(await t.auditOf(requestId)).toMatchObject({
        source: 'trigger',
        action,
        accountId,
        actor: { type: 'owner', id: accountId },
        agentId: 'ag_creator',
        target: trigger.id,
      });
      return reply;
    };
    const item = { accountId, id: trigger.id };
    const paused = await act(TriggerOwnerEndpoints.pause, item, 'trigger.pause');
    expect(paused).toMatchObject({ status: 'paused', nextRunAt: null, scheduleText: expect.any(String) });
    const resumed = await act(TriggerOwnerEndpoints.resume, item, 'trigger.resume');
    expect(resumed).toMatchObject({ status: 'active', nextRunAt: trigger.nextRunAt });
    const saving = await act(TriggerOwnerEndpoints.memory, { ...item, enabled: true }, 'trigger.update');
    expect(saving).toMatchObject({ action: { saveOutputToMemory: true } });
    const run = await act(TriggerOwnerEndpoints.run, item, 'trigger.run_now');
    expect(run).toMatchObject({ triggerId: trigger.id, status: 'queued' });
    expect(await act(TriggerOwnerEndpoints.remove, item, 'trigger.delete')).toEqual({
      id: trigger.id,
      deleted: true,
    });
    expect(await t.db.trigger.count({ where: { accountId } })).toBe(0);
  });

  test("another account's trigger is 404 for every owner action, and stays as it was", async () => {
    const a = randomUUID();
    const b = randomUUID();
    const trigger = await createFor(a);
    expect(await t.askOwner(TriggerOwnerEndpoints.list, { accountId: b, runs: 5 })).toEqual({ triggers: [] });
    const asB = { accountId: b, id: trigger.id };
    await expect(t.askOwner(TriggerOwnerEndpoints.pause, asB)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(t.askOwner(TriggerOwnerEndpoints.resume, asB)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(t.askOwner(TriggerOwnerEndpoints.run, asB)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(t.askOwner(TriggerOwnerEndpoints.remove, asB)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(t.askOwner(TriggerOwnerEndpoints.memory, { ...asB, enabled: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const row = await t.db.trigger.findUniqueOrThrow({ where: { id: trigger.id } });
    expect(row).toMatchObject({ status: 'active', saveOutputToMemory: false });
    expect(await t.db.run.count({ where: { triggerId: trigger.id } })).toBe(0);
  });
});
