/**
 * Who holds a run, in PostgreSQL alone (docs/adr/0048):
 * - claimRuns: queued runs become `running` with a lease, each by exactly one scheduler
 *   (`FOR UPDATE SKIP LOCKED`: a row another scheduler is claiming is skipped, one it has claimed
 *   is no longer `queued` when re-checked). The rows are picked in a MATERIALIZED CTE, not in
 *   `WHERE id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)`: there the planner may run the
 *   subquery again for the join and lock more than n rows (a scheduler with one slot claimed two
 *   in the crash test);
 * - extendLeases: the holder's heartbeat; a run it no longer holds (failed by another scheduler
 *   after the lease ran out) is not returned, and the holder gives it up;
 * - failExpiredLeases: a running run whose lease ran out lost its scheduler (a crash, a kill):
 *   it ends failed RUN_INTERRUPTED and is never started again, since its prompt may already have
 *   acted on the owner's services.
 * Times are the scheduler's clock (`now`), so every comparison here is against one clock.
 */
import type { ClaimedRun, RunCause, SqlPool } from './types.ts';

interface ClaimedRow {
  id: string;
  trigger_id: string;
  account_id: string;
  cause: RunCause;
  late: boolean;
  scheduled_for: Date;
  attempts: number;
  created_by_agent: string;
  created_by_client: string | null;
  prompt: string;
  services: string[];
  scopes: string[];
  save_output_to_memory: boolean;
}

const RUN_FIELDS = `r.id, r.trigger_id, r.account_id::text AS account_id, r.cause, r.late, r.scheduled_for,
  r.attempts, t.created_by_agent, t.created_by_client, t.prompt, t.services, t.scopes, t.save_output_to_memory`;

export async function claimRuns(
  pool: SqlPool,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<ClaimedRun[]> {
  if (limit <= 0) return [];
  const { rows } = await pool.query<ClaimedRow>({
    name: 'trigger_claim_runs',
    text: `WITH picked AS MATERIALIZED (
             SELECT id FROM "trigger".runs
              WHERE status = 'queued'
              ORDER BY queued_at, seq
              LIMIT $3
                FOR UPDATE SKIP LOCKED
           )
           UPDATE "trigger".runs r
              SET status = 'running', attempts = r.attempts + 1, started_at = $1, lease_until = $2
             FROM picked, "trigger".triggers t
            WHERE r.id = picked.id AND t.id = r.trigger_id
        RETURNING ${RUN_FIELDS}`,
    values: [now, new Date(now.getTime() + leaseMs), limit],
  });
  return rows.map(toClaimedRun);
}

/** Pushes the lease of the runs still held; returns the ids it extended (the others are lost). */
export async function extendLeases(
  pool: SqlPool,
  ids: readonly string[],
  now: Date,
  leaseMs: number,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await pool.query<{ id: string }>({
    name: 'trigger_extend_leases',
    text: `UPDATE "trigger".runs SET lease_until = $2
            WHERE id = ANY($1::text[]) AND status = 'running' AND lease_until >= $3
        RETURNING id`,
    values: [ids, new Date(now.getTime() + leaseMs), now],
  });
  return new Set(rows.map((row) => row.id));
}

/** What failExpiredLeases ended: each for its `trigger.run` audit event. */
export interface InterruptedRun {
  run: ClaimedRun;
  finishedAt: Date;
}

export const INTERRUPTED_MESSAGE =
  'The scheduler running it stopped before it finished (its lease ran out); it is not run again, since its prompt may already have acted.';

export async function failExpiredLeases(pool: SqlPool, now: Date, limit: number): Promise<InterruptedRun[]> {
  const { rows } = await pool.query<ClaimedRow>({
    name: 'trigger_fail_expired_leases',
    text: `WITH expired AS MATERIALIZED (
             SELECT id FROM "trigger".runs
              WHERE status = 'running' AND lease_until < $1
              LIMIT $2
                FOR UPDATE SKIP LOCKED
           ), failed AS (
             UPDATE "trigger".runs r
                SET status = 'failed', finished_at = $1, lease_until = NULL,
                    error_code = 'RUN_INTERRUPTED', error_message = $3
               FROM expired WHERE r.id = expired.id
          RETURNING r.*
           ), touched AS (
             UPDATE "trigger".triggers t SET last_run_at = $1
               FROM failed WHERE t.id = failed.trigger_id
           )
           SELECT ${RUN_FIELDS} FROM failed r JOIN "trigger".triggers t ON t.id = r.trigger_id`,
    values: [now, limit, INTERRUPTED_MESSAGE],
  });
  return rows.map((row) => ({ run: toClaimedRun(row), finishedAt: now }));
}

function toClaimedRun(row: ClaimedRow): ClaimedRun {
  return {
    id: row.id,
    triggerId: row.trigger_id,
    accountId: row.account_id,
    agentId: row.created_by_agent,
    clientId: row.created_by_client,
    cause: row.cause,
    late: row.late,
    scheduledFor: row.scheduled_for,
    attempts: row.attempts,
    prompt: row.prompt,
    services: row.services,
    scopes: row.scopes,
    saveOutputToMemory: row.save_output_to_memory,
  };
}
