/**
 * Issue 13 point 3: three schedulers on one PostgreSQL and a real nats-server, 200 triggers due in
 * the same minute, each fires exactly once: one run each, and the brain asked once per run (the
 * schedulers carry runs out with the bus runner; the services it asks are support/run-peers.ts). The unique index on (trigger, due time) is not what holds this: a BEFORE
 * INSERT trigger of the test counts every run the schedulers try to insert (it fires before ON
 * CONFLICT decides), and there is exactly one attempt per trigger.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { TestBroker } from '@pag/kit/testing';
import { startTestBroker } from '@pag/kit/testing';
import { startScheduler } from '../src/scheduler/scheduler.ts';
import type { Scheduler } from '../src/scheduler/types.ts';
import type { RunPeers } from './support/run-peers.ts';
import { startRunPeers } from './support/run-peers.ts';
import type { SchedulerDb } from './support/scheduler-db.ts';
import {
  AGENT,
  minuteAgo,
  quietLogger,
  recordingAudit,
  SETTINGS,
  startSchedulerDb,
} from './support/scheduler-db.ts';

const TRIGGERS = 200;

let db: SchedulerDb;
let broker: TestBroker;
let peers: RunPeers;

beforeAll(async () => {
  db = await startSchedulerDb();
  broker = await startTestBroker({ kind: 'nats' });
  peers = await startRunPeers(broker);
  await db.pool.query(`
    CREATE TABLE "trigger".run_insert_attempts (trigger_id text NOT NULL, scheduled_for timestamptz NOT NULL);
    CREATE FUNCTION "trigger".count_run_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO "trigger".run_insert_attempts VALUES (NEW.trigger_id, NEW.scheduled_for); RETURN NEW; END $$;
    CREATE TRIGGER count_run_insert BEFORE INSERT ON "trigger".runs
      FOR EACH ROW EXECUTE FUNCTION "trigger".count_run_insert();`);
});

afterAll(async () => {
  await broker?.close();
  await db?.close();
});

async function attemptsPerTrigger(): Promise<Map<string, number>> {
  const { rows } = await db.pool.query<{ trigger_id: string; n: number }>(
    `SELECT trigger_id, count(*)::int AS n FROM "trigger".run_insert_attempts GROUP BY trigger_id`,
  );
  return new Map(rows.map((row) => [row.trigger_id, row.n]));
}

describe('three schedulers, one database', () => {
  test('the attempt counter sees an insert that ON CONFLICT drops', async () => {
    const at = minuteAgo(30);
    const id = await db.insertTrigger({
      schedule: { type: 'daily', atHour: 0, atMinute: 0 },
      nextRunAt: null,
    });
    const insert = `INSERT INTO "trigger".runs (id, trigger_id, account_id, cause, scheduled_for)
                    SELECT $1, id, account_id, 'schedule', $2 FROM "trigger".triggers WHERE id = $3
                    ON CONFLICT (trigger_id, scheduled_for) WHERE cause <> 'manual' DO NOTHING`;
    await db.pool.query(insert, ['run_probe_1', at, id]);
    await db.pool.query(insert, ['run_probe_2', at, id]);
    expect(await db.runs(id)).toHaveLength(1);
    expect((await attemptsPerTrigger()).get(id)).toBe(2);
    await db.pool.query(`DELETE FROM "trigger".triggers WHERE id = $1`, [id]);
    await db.pool.query(`TRUNCATE "trigger".run_insert_attempts`);
  });

  test(`${TRIGGERS} triggers due in the same minute each run exactly once`, async () => {
    const dueAt = minuteAgo(0);
    const schedule = { type: 'daily', atHour: dueAt.getUTCHours(), atMinute: dueAt.getUTCMinutes() } as const;
    const ids = await Promise.all(
      Array.from({ length: TRIGGERS }, () => db.insertTrigger({ schedule, nextRunAt: dueAt })),
    );
    peers.grant(AGENT);
    const { audit, events } = recordingAudit();
    const schedulers: Scheduler[] = [];
    for (let replica = 0; replica < 3; replica += 1) {
      schedulers.push(
        startScheduler({
          pool: db.replicaPool(),
          bus: await broker.connect(`trigger-${replica}`),
          logger: quietLogger,
          audit,
          // A generous grace: a slow start of the test must not turn these into catch-up runs.
          settings: { ...SETTINGS, lateGraceMs: 10 * 60_000 },
        }),
      );
    }
    try {
      // Each started with a pass; a second pass of all three at once, then every claimed run done.
      await Promise.all(schedulers.map((scheduler) => scheduler.tick()));
      await Promise.all(schedulers.map((scheduler) => scheduler.idle()));
    } finally {
      await Promise.all(schedulers.map((scheduler) => scheduler.stop()));
    }

    const runs = await db.runs();
    expect(runs).toHaveLength(TRIGGERS);
    expect(new Set(runs.map((run) => run.trigger_id))).toEqual(new Set(ids));
    for (const run of runs) {
      expect(run).toMatchObject({
        cause: 'schedule',
        late: false,
        status: 'succeeded',
        attempts: 1,
        model: 'offline',
      });
      expect(run.scheduled_for).toEqual(dueAt);
    }
    const attempts = await attemptsPerTrigger();
    expect(attempts.size).toBe(TRIGGERS);
    expect([...attempts.values()].every((n) => n === 1)).toBe(true);

    const prompts = peers.asked.filter((each) => each.subject === 'brain.prompt.run');
    expect(prompts).toHaveLength(TRIGGERS);
    expect(new Set(prompts.map((each) => each.data.runId))).toEqual(new Set(runs.map((run) => run.id)));
    expect(events).toHaveLength(TRIGGERS);
    expect(new Set(events.map((event) => event.detail.runId)).size).toBe(TRIGGERS);

    const { rows } = await db.pool.query<{ due: number; ran: number }>(
      `SELECT count(*) FILTER (WHERE next_run_at <= $1)::int AS due,
              count(*) FILTER (WHERE last_run_at IS NOT NULL)::int AS ran
         FROM "trigger".triggers`,
      [new Date()],
    );
    expect(rows[0]).toEqual({ due: 0, ran: TRIGGERS });
  });
});
