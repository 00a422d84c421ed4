/**
 * Issue 13 point 3: a scheduler killed in the middle of a run (SIGKILL of its process, by pid),
 * another started: the run ends failed RUN_INTERRUPTED, once in the history, and is never run
 * again; a run the dead scheduler had left queued is simply carried out by the other.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MemoryBus } from '@pag/kit';
import { eventually } from '@pag/kit/testing';
import { startScheduler } from '../src/scheduler/scheduler.ts';
import type { SchedulerDb } from './support/scheduler-db.ts';
import {
  minuteAgo,
  quietLogger,
  recordingAudit,
  recordingExecutor,
  SETTINGS,
  startSchedulerDb,
} from './support/scheduler-db.ts';

const CHILD = fileURLToPath(new URL('./support/scheduler-child.ts', import.meta.url));
/** Short, so the other scheduler sees the dead one's lease run out within the test. */
const LEASE_MS = 1_000;

let db: SchedulerDb;

beforeAll(async () => {
  db = await startSchedulerDb();
});

afterAll(async () => {
  await db?.close();
});

/** Starts the child scheduler and resolves with it once it has claimed a run (and with that run). */
async function childInTheMiddleOfARun() {
  const child = spawn(process.execPath, [CHILD], {
    env: { ...process.env, DATABASE_URL: db.postgres.url, RUN_LEASE_MS: String(LEASE_MS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let output = '';
  const claimed = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^claimed (\S+)$/m.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`the scheduler child exited (${code}):\n${output}`)));
  });
  return { pid: child.pid as number, exited, claimed };
}

describe('a scheduler killed during a run', () => {
  test('the run ends failed RUN_INTERRUPTED, once, and never runs again', async () => {
    const dueAt = minuteAgo(0);
    const triggerId = await db.insertTrigger({
      schedule: { type: 'daily', atHour: dueAt.getUTCHours(), atMinute: dueAt.getUTCMinutes() },
      nextRunAt: dueAt,
    });
    // Queued before the child starts: its one slot takes the older (the scheduled run is planned
    // later, at its first pass), so this one is what the child is in the middle of.
    const manualRunId = await db.queueManualRun(triggerId, minuteAgo(1));

    const child = await childInTheMiddleOfARun();
    expect(child.claimed).toBe(manualRunId);
    process.kill(child.pid, 'SIGKILL');
    await child.exited;

    const [interrupted, left] = await db.runs(triggerId);
    expect(interrupted).toMatchObject({ id: manualRunId, status: 'running', attempts: 1 });
    // The child planned the scheduled run too; with its one slot busy it left it queued.
    expect(left).toMatchObject({ cause: 'schedule', status: 'queued', attempts: 0 });

    const recording = recordingExecutor();
    const { audit, events } = recordingAudit();
    const scheduler = startScheduler({
      pool: db.replicaPool(),
      bus: new MemoryBus(),
      logger: quietLogger,
      audit,
      settings: { ...SETTINGS, runLeaseMs: LEASE_MS, tickMs: 100 },
      executor: recording.executor,
    });
    try {
      // The dead scheduler's lease runs out within LEASE_MS: a state nothing announces.
      await eventually(
        async () =>
          expect((await db.runs(triggerId)).map((run) => run.status)).toEqual(['failed', 'succeeded']),
        { what: 'the interrupted run failed and the queued one ran', timeoutMs: 10_000 },
      );
      await scheduler.tick();
      await scheduler.idle();
    } finally {
      await scheduler.stop();
    }

    const runs = await db.runs(triggerId);
    expect(runs).toHaveLength(2);
    expect(runs[0]).toMatchObject({
      id: manualRunId,
      status: 'failed',
      attempts: 1,
      error_code: 'RUN_INTERRUPTED',
      lease_until: null,
      output: null,
    });
    expect(runs[1]).toMatchObject({ id: left?.id, status: 'succeeded', attempts: 1 });
    expect(recording.calls.map((run) => run.id)).toEqual([left?.id]);
    expect(events.map((event) => [event.detail.runId, event.reason])).toEqual(
      expect.arrayContaining([
        [manualRunId, 'RUN_INTERRUPTED'],
        [left?.id, null],
      ]),
    );
    expect(events).toHaveLength(2);
    expect((await db.trigger(triggerId)).last_run_at).not.toBeNull();
  });
});
