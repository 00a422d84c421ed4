/**
 * The trigger scheduler (docs/adr/0048): plans due triggers into runs, claims queued runs, keeps
 * their leases, fails runs whose scheduler died (RUN_INTERRUPTED), all in PostgreSQL, so any
 * number of replicas run each due time exactly once. The service starts one with its pool, bus,
 * logger, audit publisher and the TRIGGER_* settings and stops it before the bus and the database;
 * the default executor is the bus runner (auth.agents.grant → gateway.usage.charge →
 * brain.prompt.run, as the trigger's creating agent with its narrowed scopes).
 *
 * One scheduler: every tick a pass plans due triggers, fails runs whose lease ran
 * out and claims queued runs for its free slots; a run that finishes frees its slot and claims
 * the next at once. While it holds runs, a heartbeat extends their leases every third of a lease;
 * a run whose lease it lost (another scheduler failed it) is aborted and not recorded.
 *
 * stop(): no more passes or claims; running runs get stopBudgetMs to finish, the rest are aborted
 * and left to the lease rule (another scheduler fails them RUN_INTERRUPTED once their lease ends).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '@pag/contracts';
import { busRunner } from './bus-runner.ts';
import { claimRuns, extendLeases, failExpiredLeases, INTERRUPTED_MESSAGE } from './claims.ts';
import { finishRun } from './finish-run.ts';
import { planDue } from './plan-due.ts';
import { recordRunAudit } from './run-audit.ts';
import type { ClaimedRun, RunOutcome, Scheduler, SchedulerDeps } from './types.ts';

const DEFAULT_STOP_BUDGET_MS = 5_000;

interface Held {
  controller: AbortController;
  done: Promise<void>;
}

export function startScheduler(deps: SchedulerDeps): Scheduler {
  const { pool, logger, audit, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const executor = deps.executor ?? busRunner({ bus: deps.bus, logger, runTimeoutMs: settings.runTimeoutMs });
  const held = new Map<string, Held>();
  let stopping: Promise<void> | undefined;
  let passes: Promise<void> = Promise.resolve();
  let claims: Promise<void> = Promise.resolve();
  let tickTimer: NodeJS.Timeout | undefined;

  /** One pass at a time, whoever asks (the timer or a test). */
  const tick = (): Promise<void> => {
    if (stopping !== undefined) return passes;
    passes = passes
      .then(pass)
      .catch((error: unknown) => logger.error({ err: error }, 'scheduler pass failed'));
    return passes;
  };

  async function pass(): Promise<void> {
    let planned = 0;
    for (;;) {
      const report = await planDue(pool, {
        now: now(),
        lateGraceMs: settings.lateGraceMs,
        batch: settings.planBatch,
        logger,
      });
      planned += report.due;
      if (report.due < settings.planBatch || stopping !== undefined) break;
    }
    if (planned > 0) logger.debug({ planned }, 'due triggers planned');
    for (const { run, finishedAt } of await failExpiredLeases(pool, now(), settings.planBatch)) {
      logger.warn(
        { runId: run.id, triggerId: run.triggerId },
        'run interrupted: its scheduler lost its lease',
      );
      const outcome: RunOutcome = {
        status: 'failed',
        error: { code: 'RUN_INTERRUPTED', message: INTERRUPTED_MESSAGE },
      };
      recordRunAudit(audit, run, outcome, null, finishedAt);
    }
    await claimFree();
  }

  /** Claims queued runs for the free slots; one claim at a time. */
  function claimFree(): Promise<void> {
    claims = claims
      .then(async () => {
        const free = settings.concurrency - held.size;
        if (stopping !== undefined || free <= 0) return;
        for (const run of await claimRuns(pool, now(), settings.runLeaseMs, free)) carryOut(run);
      })
      .catch((error: unknown) => logger.error({ err: error }, 'claiming runs failed'));
    return claims;
  }

  function carryOut(run: ClaimedRun): void {
    const controller = new AbortController();
    const startedAt = now();
    const done = execute(run, controller.signal)
      .then(async (outcome) => {
        // Given up (stop budget spent, lease lost): the lease rule records it, not this one.
        if (controller.signal.aborted) return;
        const finishedAt = now();
        if (await finishRun(pool, run.id, outcome, finishedAt)) {
          recordRunAudit(audit, run, outcome, startedAt, finishedAt);
        } else {
          logger.warn({ runId: run.id }, 'run finished after another scheduler had failed it; not recorded');
        }
      })
      .catch((error: unknown) => logger.error({ err: error, runId: run.id }, 'recording a run failed'))
      .finally(() => {
        held.delete(run.id);
        void claimFree();
      });
    held.set(run.id, { controller, done });
  }

  async function execute(run: ClaimedRun, signal: AbortSignal): Promise<RunOutcome> {
    try {
      return await executor(run, signal);
    } catch (error) {
      logger.error({ err: error, runId: run.id }, 'a run failed unexpectedly');
      const code = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
      return { status: 'failed', error: { code, message: 'The run failed unexpectedly.' } };
    }
  }

  async function heartbeat(): Promise<void> {
    const ids = [...held.keys()];
    if (ids.length === 0) return;
    const kept = await extendLeases(pool, ids, now(), settings.runLeaseMs);
    for (const id of ids) {
      if (kept.has(id)) continue;
      logger.warn({ runId: id }, 'lost the lease of a run; giving it up');
      held.get(id)?.controller.abort(new Error('the run’s lease was lost'));
    }
  }
  const heartbeatTimer = setInterval(
    () => {
      heartbeat().catch((error: unknown) => logger.error({ err: error }, 'extending run leases failed'));
    },
    Math.max(1, Math.floor(settings.runLeaseMs / 3)),
  );

  const loop = () => {
    void tick().finally(() => {
      if (stopping === undefined) tickTimer = setTimeout(loop, settings.tickMs);
    });
  };
  loop();

  async function stop(): Promise<void> {
    clearTimeout(tickTimer);
    await passes;
    await claims;
    const budget = new AbortController();
    const finished = Promise.all([...held.values()].map((run) => run.done)).then(() => true);
    const inTime = await Promise.race([
      finished,
      sleep(settings.stopBudgetMs ?? DEFAULT_STOP_BUDGET_MS, false, { signal: budget.signal }).catch(
        () => false,
      ),
    ]);
    budget.abort();
    if (!inTime) {
      logger.warn({ runs: [...held.keys()] }, 'runs still running at stop are left to their lease');
      for (const run of held.values()) run.controller.abort(new Error('the scheduler stopped'));
    }
    clearInterval(heartbeatTimer);
  }

  return {
    tick,
    stop() {
      stopping ??= stop();
      return stopping;
    },
    async idle() {
      // A finished run claims the next before its `done` resolves: wait for that claim too.
      for (;;) {
        await claims;
        if (held.size === 0) return;
        await Promise.all([...held.values()].map((run) => run.done));
      }
    },
  };
}
