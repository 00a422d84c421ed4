/**
 * The scheduler's public shapes (docs/adr/0048): what the service gives it, what it gives back,
 * and what one claimed run is and may end as. mod.ts exports them with startScheduler.
 */
import type { ErrorCode } from '@pag/contracts';
import type { ActionAuditPublisher, Bus, Logger, sqlPoolOf } from '@pag/kit';

/** The service's node-postgres pool: kit's `sqlPoolOf(prisma)` (search_path is the trigger schema). */
export type SqlPool = ReturnType<typeof sqlPoolOf>;

/** The TRIGGER_* settings of the service's config, in milliseconds and counts. */
export interface SchedulerSettings {
  /** TRIGGER_TICK_MS: pause between two passes (plan, recover, claim). */
  tickMs: number;
  /** TRIGGER_LATE_GRACE_MS: a due time found later than this is caught up (one late run). */
  lateGraceMs: number;
  /** TRIGGER_RUN_LEASE_MS: how long a claimed run stays ours without a heartbeat. */
  runLeaseMs: number;
  /** TRIGGER_RUN_TIMEOUT_MS: how long the brain may take over one prompt (brain.prompt.run). */
  runTimeoutMs: number;
  /** TRIGGER_CONCURRENCY: runs one scheduler carries out at once. */
  concurrency: number;
  /** TRIGGER_PLAN_BATCH: due triggers planned per transaction. */
  planBatch: number;
  /** How long stop() lets running runs finish before leaving them to the lease rule; 5000. */
  stopBudgetMs?: number;
}

export interface SchedulerDeps {
  pool: SqlPool;
  bus: Bus;
  logger: Logger;
  /** actionAuditPublisher('trigger', …): one `trigger.run` event per finished run. Closed by the caller. */
  audit: ActionAuditPublisher;
  settings: SchedulerSettings;
  /** What a claimed run does; the bus runner (bus-runner.ts) unless given. */
  executor?: RunExecutor;
  /** The clock (tests move it); `() => new Date()` unless given. */
  now?: () => Date;
}

export interface Scheduler {
  /** Stops planning and claiming, lets running runs finish within stopBudgetMs. Idempotent. */
  stop(): Promise<void>;
  /** One pass now: plan due triggers, fail runs whose lease ran out, claim queued runs. */
  tick(): Promise<void>;
  /** Resolves once every run this scheduler has claimed so far has finished (for tests). */
  idle(): Promise<void>;
}

/** Why a run exists (contracts' TriggerRunCause). */
export type RunCause = 'schedule' | 'manual' | 'catch_up';

/** A run this scheduler holds the lease of, with what its trigger says it must do. */
export interface ClaimedRun {
  id: string;
  triggerId: string;
  accountId: string;
  /** The trigger's creating agent: the run acts as it. */
  agentId: string;
  /** The creating token's OAuth client, as stored on the trigger. */
  clientId: string | null;
  cause: RunCause;
  late: boolean;
  scheduledFor: Date;
  /** 1 on the first start. */
  attempts: number;
  prompt: string;
  services: string[];
  /** The trigger's scopes (the creating token's), before narrowing to the agent's. */
  scopes: string[];
  saveOutputToMemory: boolean;
}

/** A run's own error codes beside the catalogue's (documented in the service's README). */
export type RunErrorCode = ErrorCode | 'CREATOR_REVOKED' | 'RUN_INTERRUPTED';

export type RunOutcome =
  | { status: 'succeeded'; output: string; model: string; memoryId: string | null }
  | {
      status: 'failed';
      error: { code: RunErrorCode; message: string };
      /** Set: the trigger stops (status `stopped`) with this statusReason, in the run's own transaction. */
      stopTrigger?: string;
    };

/**
 * What one claimed run does. The signal aborts when the scheduler gives the run up (stop budget
 * spent, or its lease was lost); the outcome is then not recorded (the lease rule records it).
 */
export type RunExecutor = (run: ClaimedRun, signal: AbortSignal) => Promise<RunOutcome>;
