/**
 * The brain's configuration: the only reader of the environment, parsed once at start-up; every
 * bad key is listed at once.
 *
 * AUTH_TIMEOUT_MS bounds the one request the brain makes itself (auth.account.get, to seed a fresh
 * account's identity). It must stay below the gateway's CONTEXT_PART_TIMEOUT_MS (2 s by default),
 * so a silent auth service makes the brain answer UPSTREAM_TIMEOUT before the gateway gives up on it.
 */
import type { Env, NatsCredentials } from '@pag/kit';
import {
  envLogLevel,
  envMilliseconds,
  envPort,
  envUrl,
  natsCredentialsEnv,
  natsCredentialsFrom,
  parseConfig,
} from '@pag/kit';
import { z } from 'zod';

const BrainEnv = z.object({
  OPS_PORT: envPort(9092),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: envUrl,
  NATS_URL: z.string().optional(),
  ...natsCredentialsEnv,
  LOG_LEVEL: envLogLevel,
  AUTH_TIMEOUT_MS: envMilliseconds(1_500),
});

export interface BrainConfig {
  /** Port of /healthz, /readyz and /metrics (the brain has no other listener: it answers on the bus). */
  opsPort: number;
  host: string;
  databaseUrl: string;
  /** Set: NATS; unset: the in-memory bus (useful only inside one process). */
  natsUrl: string | undefined;
  /** The brain's own NATS user; unset: no sign-in. */
  natsCredentials?: NatsCredentials | undefined;
  logLevel: string;
  /** How long the brain waits for auth.account.get when it seeds a fresh account's identity. */
  authTimeoutMs: number;
}

export function loadBrainConfig(env: Env): BrainConfig {
  const parsed = parseConfig(BrainEnv, env);
  return {
    opsPort: parsed.OPS_PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    natsUrl: parsed.NATS_URL,
    natsCredentials: natsCredentialsFrom(parsed),
    logLevel: parsed.LOG_LEVEL,
    authTimeoutMs: parsed.AUTH_TIMEOUT_MS,
  };
}
