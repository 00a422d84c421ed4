/**
 * Planning (docs/adr/0048): due active triggers become runs, each due time exactly once across
 * any number of schedulers. In one transaction: the due triggers are locked `FOR UPDATE SKIP
 * LOCKED` (a trigger another scheduler is planning is skipped; one it has planned is re-checked
 * and no longer due), each gets one queued run and its next time, and the transaction commits.
 *
 * Catch-up: a trigger found due later than the grace (no scheduler ran at its time) gets ONE run,
 * cause `catch_up`, late, for its latest due time at or before now, however many were missed;
 * its next time is the first after now. The insert does nothing on a (trigger, due time) that has
 * a run already: a trigger paused and resumed within one period does not run that time twice.
 */
import { TriggerSchedule } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { newId } from '../domain/resource-id.ts';
import { latestRunAtOrBefore, nextRunAfter } from '../schedule/next-run.ts';
import type { RunCause, SqlPool } from './types.ts';

interface DueRow {
  id: string;
  account_id: string;
  schedule: unknown;
  timezone: string;
  anchor_at: Date | null;
  next_run_at: Date;
}

/** One due trigger's run and what becomes of the trigger. */
interface Plan {
  triggerId: string;
  accountId: string;
  runId: string;
  cause: RunCause;
  late: boolean;
  scheduledFor: Date;
  nextRunAt: Date | null;
  status: 'active' | 'completed' | 'stopped';
  statusReason: string | null;
}

export interface PlanReport {
  /** Due triggers planned in this pass. */
  due: number;
  /** Runs inserted (fewer than `due` only when a due time had its run already). */
  inserted: number;
}

export async function planDue(
  pool: SqlPool,
  options: { now: Date; lateGraceMs: number; batch: number; logger: Logger },
): Promise<PlanReport> {
  const { now, logger } = options;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<DueRow>({
      name: 'trigger_plan_due',
      text: `SELECT id, account_id::text AS account_id, schedule, timezone, anchor_at, next_run_at
               FROM "trigger".triggers
              WHERE status = 'active' AND next_run_at <= $1
              ORDER BY next_run_at
              LIMIT $2
                FOR UPDATE SKIP LOCKED`,
      values: [now, options.batch],
    });
    const plans = rows.map((row) => planOne(row, now, options.lateGraceMs, logger));
    const inserted = plans.length === 0 ? 0 : await insertRuns(client, plans, now);
    if (plans.length > 0) await advanceTriggers(client, plans, now);
    await client.query('COMMIT');
    if (inserted < plans.length) {
      logger.info({ due: plans.length, inserted }, 'some due times had their run already');
    }
    return { due: plans.length, inserted };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

function planOne(row: DueRow, now: Date, lateGraceMs: number, logger: Logger): Plan {
  const base = { triggerId: row.id, accountId: row.account_id, runId: newId('run') };
  const late = now.getTime() - row.next_run_at.getTime() > lateGraceMs;
  try {
    const schedule = TriggerSchedule.parse(row.schedule);
    const anchor = row.anchor_at;
    const latest = late ? latestRunAtOrBefore(schedule, row.timezone, now, anchor) : null;
    // The latest due time, never earlier than the one the trigger was waiting for.
    const scheduledFor = latest !== null && latest > row.next_run_at ? latest : row.next_run_at;
    const nextRunAt = nextRunAfter(schedule, row.timezone, now, anchor);
    return {
      ...base,
      cause: late ? 'catch_up' : 'schedule',
      late,
      scheduledFor,
      nextRunAt,
      status: nextRunAt === null ? 'completed' : 'active',
      statusReason: null,
    };
  } catch (error) {
    // A stored schedule the contracts no longer accept (or a zone the runtime lost): the due
    // time still runs once, and the trigger stops saying why instead of failing every pass.
    logger.error({ err: error, triggerId: row.id }, 'the next run of a trigger could not be computed');
    return {
      ...base,
      cause: late ? 'catch_up' : 'schedule',
      late,
      scheduledFor: row.next_run_at,
      nextRunAt: null,
      status: 'stopped',
      statusReason: 'The scheduler could not compute its next run from its schedule and time zone.',
    };
  }
}

/** The transaction's connection, as far as planning uses it (node-postgres' client and pool share `query`). */
type Client = Pick<SqlPool, 'query'>;

async function insertRuns(client: Client, plans: Plan[], now: Date): Promise<number> {
  const { rowCount } = await client.query({
    name: 'trigger_plan_insert_runs',
    text: `INSERT INTO "trigger".runs (id, trigger_id, account_id, cause, late, scheduled_for, queued_at)
           SELECT run_id, trigger_id, account_id, cause, late, scheduled_for, $7
             FROM unnest($1::text[], $2::text[], $3::uuid[], $4::text[], $5::boolean[], $6::timestamptz[])
                  AS p(run_id, trigger_id, account_id, cause, late, scheduled_for)
           ON CONFLICT (trigger_id, scheduled_for) WHERE cause <> 'manual' DO NOTHING`,
    values: [
      plans.map((plan) => plan.runId),
      plans.map((plan) => plan.triggerId),
      plans.map((plan) => plan.accountId),
      plans.map((plan) => plan.cause),
      plans.map((plan) => plan.late),
      plans.map((plan) => plan.scheduledFor),
      now,
    ],
  });
  return rowCount ?? 0;
}

async function advanceTriggers(client: Client, plans: Plan[], now: Date): Promise<void> {
  await client.query({
    name: 'trigger_plan_advance',
    text: `UPDATE "trigger".triggers t
              SET next_run_at = p.next_run_at, status = p.status,
                  status_reason = COALESCE(p.status_reason, t.status_reason),
                  updated_at = CASE WHEN p.status = t.status THEN t.updated_at ELSE $5 END
             FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[])
                  AS p(id, next_run_at, status, status_reason)
            WHERE t.id = p.id`,
    values: [
      plans.map((plan) => plan.triggerId),
      plans.map((plan) => plan.nextRunAt),
      plans.map((plan) => plan.status),
      plans.map((plan) => plan.statusReason),
      now,
    ],
  });
}
