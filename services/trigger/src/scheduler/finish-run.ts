/**
 * Records a run's outcome, in one statement: the run ends (succeeded with its output, or failed
 * with its error), its trigger's last_run_at moves, and a run that found its creator revoked or
 * short of a scope stops its trigger (status `stopped`, the reason, nothing scheduled).
 *
 * Only a run still `running` is finished: one failed RUN_INTERRUPTED by another scheduler (this
 * one lost its lease) keeps that record, so a run has exactly one outcome in the history.
 */
import type { RunOutcome, SqlPool } from './types.ts';

/** Error messages come from other services' errors: bounded before they are stored. */
const ERROR_MESSAGE_MAX = 1_000;

export async function finishRun(
  pool: SqlPool,
  runId: string,
  outcome: RunOutcome,
  finishedAt: Date,
): Promise<boolean> {
  const succeeded = outcome.status === 'succeeded';
  const { rows } = await pool.query<{ id: string }>({
    name: 'trigger_finish_run',
    text: `WITH finished AS (
             UPDATE "trigger".runs
                SET status = $2, finished_at = $3, lease_until = NULL,
                    output = $4, model = $5, memory_id = $6, error_code = $7, error_message = $8
              WHERE id = $1 AND status = 'running'
          RETURNING id, trigger_id
           ), touched AS (
             UPDATE "trigger".triggers t
                SET last_run_at = $3,
                    status = CASE WHEN $9::text IS NULL OR t.status NOT IN ('active', 'paused')
                                  THEN t.status ELSE 'stopped' END,
                    status_reason = CASE WHEN $9::text IS NULL OR t.status NOT IN ('active', 'paused')
                                         THEN t.status_reason ELSE $9::text END,
                    next_run_at = CASE WHEN $9::text IS NULL OR t.status NOT IN ('active', 'paused')
                                       THEN t.next_run_at ELSE NULL END,
                    updated_at = CASE WHEN $9::text IS NULL OR t.status NOT IN ('active', 'paused')
                                      THEN t.updated_at ELSE $3 END
               FROM finished WHERE t.id = finished.trigger_id
           )
           SELECT id FROM finished`,
    values: [
      runId,
      outcome.status,
      finishedAt,
      succeeded ? outcome.output : null,
      succeeded ? outcome.model : null,
      succeeded ? outcome.memoryId : null,
      succeeded ? null : outcome.error.code,
      succeeded ? null : outcome.error.message.slice(0, ERROR_MESSAGE_MAX),
      succeeded ? null : (outcome.stopTrigger ?? null),
    ],
  });
  return rows.length === 1;
}
