/**
 * The trigger scheduler (docs/adr/0048): plans due triggers into runs, claims queued runs, keeps
 * their leases, fails runs whose scheduler died (RUN_INTERRUPTED), all in PostgreSQL, so any
 * number of replicas run each due time exactly once.
 *
 * The service starts it once with its pool, bus, logger, audit publisher and the TRIGGER_*
 * settings, and registers `stop` as a closer before the bus and the database:
 *
 *   const scheduler = startScheduler({ pool: sqlPoolOf(prisma), bus, logger, audit, settings });
 *   shutdown.add('scheduler', () => scheduler.stop());
 *
 * The default executor is the bus runner: auth.agents.grant → gateway.usage.charge →
 * brain.prompt.run, as the trigger's creating agent with its narrowed scopes.
 */
export { busRunner } from './bus-runner.ts';
export { startScheduler } from './scheduler.ts';
export type {
  ClaimedRun,
  RunCause,
  RunErrorCode,
  RunExecutor,
  RunOutcome,
  Scheduler,
  SchedulerDeps,
  SchedulerSettings,
  SqlPool,
} from './types.ts';
