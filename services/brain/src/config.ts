/**
 * The brain's configuration: the only reader of the environment, parsed once at start-up; every
 * bad key is listed at once. The keys are declared once, below; the config's type is inferred.
 *
 * AUTH_TIMEOUT_MS bounds the one request the brain makes itself (auth.account.get, to seed a fresh
 * account's identity). It must stay below the gateway's CONTEXT_PART_TIMEOUT_MS (2 s by default),
 * so a silent auth service makes the brain answer UPSTREAM_TIMEOUT before the gateway gives up on it.
 */
import type { Env } from '@pag/kit';
import { databaseEnv, defineConfig, envMilliseconds, natsCheck, processEnv, processFrom } from '@pag/kit';

export const brainConfig = defineConfig({
  env: {
    // The brain has no listener but the ops one: it answers on the bus.
    ...processEnv(9092),
    ...databaseEnv,
    AUTH_TIMEOUT_MS: envMilliseconds(1_500),
  },
  checks: [natsCheck],
  from: (env) => ({
    ...processFrom(env),
    databaseUrl: env.DATABASE_URL,
    /** How long the brain waits for auth.account.get when it seeds a fresh account's identity. */
    authTimeoutMs: env.AUTH_TIMEOUT_MS,
  }),
});

export type BrainConfig = ReturnType<typeof brainConfig.parse>;

export function loadBrainConfig(env: Env): BrainConfig {
  return brainConfig.parse(env);
}
