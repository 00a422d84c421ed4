/**
 * One `trigger.run` action event per finished run (issue 13 point 5; docs/adr/0041's publisher):
 * the schedule as actor for its runs (the run's agent is named as the agent acted for), the
 * trigger as target, the run's id, cause, lateness and status in the detail, and the outcome
 * (allowed, or error with the run's error code). Never the prompt or the output. The run's id is
 * the request id, as in the brain's and the proxy's events of the same run.
 */
import type { ActionAuditPublisher } from '@pag/kit';
import type { ClaimedRun, RunOutcome } from './types.ts';

export function recordRunAudit(
  audit: ActionAuditPublisher,
  run: ClaimedRun,
  outcome: RunOutcome,
  startedAt: Date | null,
  finishedAt: Date,
): void {
  const failed = outcome.status === 'failed';
  audit.record(
    {
      time: finishedAt,
      requestId: run.id,
      accountId: run.accountId,
      clientId: run.clientId,
      agentId: run.agentId,
      // The scheduler carries out every run, a manual one too (its cause says it was asked for).
      actor: { type: 'schedule', id: null },
      action: 'trigger.run',
      target: run.triggerId,
      decision: failed ? 'error' : 'allowed',
      reason: failed ? outcome.error.code : null,
      status: null,
      latencyMs: startedAt === null ? null : Math.max(0, finishedAt.getTime() - startedAt.getTime()),
      detail: {
        runId: run.id,
        cause: run.cause,
        late: run.late,
        attempts: run.attempts,
        scheduledFor: run.scheduledFor.toISOString(),
        status: outcome.status,
        errorCode: failed ? outcome.error.code : null,
        triggerStopped: failed && outcome.stopTrigger !== undefined,
      },
    },
    { runId: run.id, triggerId: run.triggerId },
  );
}
