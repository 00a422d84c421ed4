/**
 * The bus runner (issue 13 points 4 and 5) through the scheduler, on a real nats-server and
 * PostgreSQL, the services it asks answered by small responders (support/run-peers.ts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { AppError } from '@pag/contracts';
import type { Bus } from '@pag/kit';
import type { TestBroker } from '@pag/kit/testing';
import { startTestBroker } from '@pag/kit/testing';
import { startScheduler } from '../src/scheduler/scheduler.ts';
import type { RunPeers } from './support/run-peers.ts';
import { startRunPeers } from './support/run-peers.ts';
import type { SchedulerDb } from './support/scheduler-db.ts';
import { ACCOUNT, quietLogger, recordingAudit, SETTINGS, startSchedulerDb } from './support/scheduler-db.ts';

let db: SchedulerDb;
let broker: TestBroker;
let triggerBus: Bus;
let peers: RunPeers;

beforeAll(async () => {
  db = await startSchedulerDb();
  broker = await startTestBroker({ kind: 'nats' });
  triggerBus = await broker.connect('trigger');
  peers = await startRunPeers(broker);
});

afterEach(async () => {
  peers.reset();
  await db.clear();
});

afterAll(async () => {
  await broker?.close();
  await db?.close();
});

const grant = (agentId: string, fields?: Parameters<RunPeers['grant']>[1]) => peers.grant(agentId, fields);
const asked = () => peers.asked;

/** One trigger of `agentId` reading github, a manual run of it carried out by the bus runner. */
async function runOnce(agentId: string, scopes: string[] = ['full']) {
  const tomorrow = new Date(Date.now() + 24 * 3_600_000);
  const triggerId = await db.insertTrigger({
    schedule: { type: 'daily', atHour: 7, atMinute: 0 },
    nextRunAt: tomorrow,
    agentId,
    services: ['github'],
    scopes,
    clientId: 'client_at_creation',
    saveOutputToMemory: true,
  });
  const runId = await db.queueManualRun(triggerId, new Date());
  const { audit, events } = recordingAudit();
  const scheduler = startScheduler({
    pool: db.pool,
    bus: triggerBus,
    logger: quietLogger,
    audit,
    settings: SETTINGS,
  });
  await scheduler.tick();
  await scheduler.idle();
  await scheduler.stop();
  const [run] = await db.runs(triggerId);
  return { triggerId, runId, run, trigger: await db.trigger(triggerId), events, tomorrow };
}

const subjects = () => asked().map((each) => each.subject);

describe('the bus runner', () => {
  test('as its agent, with the trigger’s scopes narrowed to the agent’s: charged, run, recorded, audited', async () => {
    grant('agt_ok');
    const { runId, triggerId, run, trigger, events } = await runOnce('agt_ok', ['full']);
    expect(subjects()).toEqual(['auth.agents.grant', 'gateway.usage.charge', 'brain.prompt.run']);
    expect(asked().every((each) => each.requestId === runId)).toBe(true);
    expect(asked()[0]?.data).toEqual({ accountId: ACCOUNT, agentId: 'agt_ok' });
    expect(asked()[1]?.data).toEqual({
      accountId: ACCOUNT,
      clientId: 'client_agt_ok',
      limits: { daily: 100, monthly: 1000 },
    });
    expect(asked()[2]?.data).toMatchObject({
      accountId: ACCOUNT,
      agentId: 'agt_ok',
      clientId: 'client_agt_ok',
      // Made with `full`, its agent now holding chat and github read: never more than that.
      scopes: ['chat', 'services:github:read'],
      triggerId,
      runId,
      services: ['github'],
      saveOutputToMemory: true,
    });
    expect(run).toMatchObject({
      status: 'succeeded',
      model: 'offline',
      memory_id: 'mem_saved',
      error_code: null,
      attempts: 1,
    });
    expect(run?.output).toMatch(/^Done: /);
    expect(trigger.last_run_at).toEqual(run?.finished_at);
    expect(events).toEqual([
      expect.objectContaining({
        action: 'trigger.run',
        source: 'trigger',
        requestId: runId,
        accountId: ACCOUNT,
        agentId: 'agt_ok',
        target: triggerId,
        decision: 'allowed',
      }),
    ]);
  });

  test('a revoked creator stops the trigger: CREATOR_REVOKED, nothing charged or run', async () => {
    grant('agt_gone', { status: 'revoked', scopes: [], plan: 'pro' });
    const { run, trigger, events } = await runOnce('agt_gone');
    expect(subjects()).toEqual(['auth.agents.grant']);
    expect(run).toMatchObject({ status: 'failed', error_code: 'CREATOR_REVOKED' });
    expect(trigger).toMatchObject({
      status: 'stopped',
      status_reason: 'Its creator agent was revoked.',
      next_run_at: null,
    });
    expect(events[0]).toMatchObject({
      decision: 'error',
      reason: 'CREATOR_REVOKED',
      detail: { triggerStopped: true },
    });
  });

  test('a deleted creator stops the trigger and says so', async () => {
    grant('agt_deleted', { status: 'unknown', scopes: [], clientId: null, plan: null });
    const { trigger } = await runOnce('agt_deleted');
    expect(trigger).toMatchObject({ status: 'stopped', status_reason: 'Its creator agent was deleted.' });
  });

  test('a creator who lost a scope the trigger needs stops it, naming the scope', async () => {
    grant('agt_narrowed', { scopes: ['chat'] });
    const { run, trigger } = await runOnce('agt_narrowed');
    expect(subjects()).toEqual(['auth.agents.grant']);
    expect(run).toMatchObject({ status: 'failed', error_code: 'INSUFFICIENT_SCOPE' });
    expect(run?.error_message).toContain('services:github:read');
    expect(trigger).toMatchObject({
      status: 'stopped',
      status_reason: 'Its creator no longer holds services:github:read.',
    });
  });

  test('a plan without triggers fails the run, PLAN_REQUIRED; the trigger stays active', async () => {
    grant('agt_free', { plan: 'free' });
    const { run, trigger, tomorrow } = await runOnce('agt_free');
    expect(subjects()).toEqual(['auth.agents.grant']);
    expect(run).toMatchObject({ status: 'failed', error_code: 'PLAN_REQUIRED' });
    expect(trigger).toMatchObject({ status: 'active', next_run_at: tomorrow });
  });

  test('a refused charge fails the run, USAGE_LIMIT_EXCEEDED, and the brain is not asked', async () => {
    grant('agt_limited');
    peers.charge = {
      served: false,
      retryAfterSeconds: 3600,
      message: 'The daily limit of 100 requests is reached.',
    };
    const { run, trigger } = await runOnce('agt_limited');
    expect(subjects()).toEqual(['auth.agents.grant', 'gateway.usage.charge']);
    expect(run).toMatchObject({ status: 'failed', error_code: 'USAGE_LIMIT_EXCEEDED' });
    expect(run?.error_message).toBe('The daily limit of 100 requests is reached. Try again in 3600 s.');
    expect(trigger.status).toBe('active');
  });

  test('the brain’s error is the run’s', async () => {
    grant('agt_slow');
    peers.brainFailure = new AppError('UPSTREAM_TIMEOUT', 'The model did not answer in time.', {
      expose: true,
    });
    const { run, trigger } = await runOnce('agt_slow');
    expect(run).toMatchObject({
      status: 'failed',
      error_code: 'UPSTREAM_TIMEOUT',
      error_message: 'The model did not answer in time.',
      output: null,
    });
    expect(trigger.status).toBe('active');
  });

  test('no brain running: SERVICE_UNAVAILABLE', async () => {
    grant('agt_alone');
    await peers.stopBrain();
    const { run } = await runOnce('agt_alone');
    expect(run).toMatchObject({ status: 'failed', error_code: 'SERVICE_UNAVAILABLE' });
  });
});
