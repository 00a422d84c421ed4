/**
 * The trigger service's configuration: the only reader of the environment, parsed once at
 * start-up; every bad key is listed at once. The keys are declared once, below; the config's type
 * is inferred.
 *
 * The scheduler's settings (docs/adr/0048): TRIGGER_TICK_MS between two passes of planning and
 * claiming; a due time found more than TRIGGER_LATE_GRACE_MS late is caught up by one late run;
 * a claimed run is its scheduler's for TRIGGER_RUN_LEASE_MS unless renewed (an expired lease is a
 * crash: RUN_INTERRUPTED); TRIGGER_RUN_TIMEOUT_MS bounds brain.prompt.run; TRIGGER_CONCURRENCY
 * runs at once per replica; TRIGGER_PLAN_BATCH due triggers per planning transaction.
 * TRIGGER_GRANT_TIMEOUT_MS bounds auth.agents.grant when an agent or the owner resumes a stopped
 * trigger (below the gateway's DISPATCH_TIMEOUT_MS, 10 s by default).
 */
import type { Env } from '@pag/kit';
import { databaseEnv, defineConfig, envMilliseconds, natsCheck, processEnv, processFrom } from '@pag/kit';
import { z } from 'zod';

export const triggerConfig = defineConfig({
  env: {
    // The trigger service has no listener but the ops one: it answers on the bus.
    ...processEnv(9094),
    ...databaseEnv,
    TRIGGER_TICK_MS: envMilliseconds(1_000),
    TRIGGER_LATE_GRACE_MS: envMilliseconds(60_000),
    TRIGGER_RUN_LEASE_MS: envMilliseconds(60_000),
    TRIGGER_RUN_TIMEOUT_MS: envMilliseconds(150_000),
    TRIGGER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
    TRIGGER_PLAN_BATCH: z.coerce.number().int().min(1).max(10_000).default(100),
    TRIGGER_GRANT_TIMEOUT_MS: envMilliseconds(2_000),
  },
  checks: [
    natsCheck,
    (env, issue) => {
      // A lease renewed every third of it must outlive a pass; a grace below one tick would make
      // every run late.
      if (env.TRIGGER_RUN_LEASE_MS < 3 * env.TRIGGER_TICK_MS)
        issue('TRIGGER_RUN_LEASE_MS', 'must be at least three times TRIGGER_TICK_MS');
      if (env.TRIGGER_LATE_GRACE_MS < env.TRIGGER_TICK_MS)
        issue('TRIGGER_LATE_GRACE_MS', 'must be at least TRIGGER_TICK_MS');
    },
  ],
  from: (env) => ({
    ...processFrom(env),
    databaseUrl: env.DATABASE_URL,
    scheduler: {
      tickMs: env.TRIGGER_TICK_MS,
      lateGraceMs: env.TRIGGER_LATE_GRACE_MS,
      runLeaseMs: env.TRIGGER_RUN_LEASE_MS,
      runTimeoutMs: env.TRIGGER_RUN_TIMEOUT_MS,
      concurrency: env.TRIGGER_CONCURRENCY,
      planBatch: env.TRIGGER_PLAN_BATCH,
    },
    /** How long resuming a stopped trigger waits for auth.agents.grant. */
    grantTimeoutMs: env.TRIGGER_GRANT_TIMEOUT_MS,
  }),
});

export type TriggerConfig = ReturnType<typeof triggerConfig.parse>;

export function loadTriggerConfig(env: Env): TriggerConfig {
  return triggerConfig.parse(env);
}
