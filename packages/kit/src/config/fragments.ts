/**
 * The keys every service reads the same way, spread into its config's shape (define-config.ts):
 * the ops listener (OPS_PORT, HOST), the bus (NATS_URL and one way of signing in), the log level,
 * the database. Each fragment comes with what it turns into, so runService finds the same fields
 * in every service's config (ServiceProcessConfig).
 */
import { z } from 'zod';
import type { NatsCredentials } from '../bus/nats-credentials.ts';
import { natsCredentialsEnv, natsCredentialsFrom } from '../bus/nats-credentials.ts';
import type { ConfigIssue, EnvValues } from './define-config.ts';
import { ConfigError, envLogLevel, envPort, envUrl } from './parse-config.ts';

/** OPS_PORT (/healthz, /readyz, /metrics; the default differs per service) and HOST, the address bound. */
export const opsEnv = (opsPort: number) => ({
  OPS_PORT: envPort(opsPort),
  HOST: z.string().default('0.0.0.0'),
});

/** NATS_URL (unset: the in-memory bus, useful only inside one process) and the service's NATS user. */
export const natsEnv = {
  NATS_URL: z.string().optional(),
  ...natsCredentialsEnv,
};

export const logEnv = { LOG_LEVEL: envLogLevel };

/**
 * SHUTDOWN_DRAIN_MS: after SIGTERM, how long a service's HTTP listener keeps answering (each answer
 * closing its connection) with readiness already off, before it stops accepting (lifecycle/http-server.ts);
 * what a Kubernetes preStop sleep gives, for fronts that follow readiness. 0: stop accepting at once.
 */
export const shutdownEnv = { SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(0) };

export const databaseEnv = { DATABASE_URL: envUrl };

/** What every service process holds: ops listener, bus, log level (lifecycle/run-service.ts). */
export const processEnv = (opsPort: number) => ({
  ...opsEnv(opsPort),
  ...natsEnv,
  ...logEnv,
  ...shutdownEnv,
});

type ProcessEnv = ReturnType<typeof processEnv>;

export interface ServiceProcessConfig {
  logLevel: string;
  /** Port of /healthz, /readyz and /metrics. */
  opsPort: number;
  /** The address the service's listeners bind (HOST). */
  host: string;
  /** Set: NATS; unset: the in-memory bus. */
  natsUrl: string | undefined;
  /** The service's own NATS user (NATS_USER/NATS_PASSWORD, NATS_NKEY_SEED or NATS_CREDS_FILE); unset: no sign-in. */
  natsCredentials?: NatsCredentials | undefined;
  /** SHUTDOWN_DRAIN_MS: how long the HTTP listener drains after SIGTERM before it stops accepting; unset: 0. */
  shutdownDrainMs?: number | undefined;
}

export function processFrom(env: EnvValues<ProcessEnv>): ServiceProcessConfig {
  return {
    logLevel: env.LOG_LEVEL,
    opsPort: env.OPS_PORT,
    host: env.HOST,
    natsUrl: env.NATS_URL,
    natsCredentials: natsCredentialsFrom(env),
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
  };
}

/** One way of signing in to NATS at most, and only with NATS_URL: listed with the other bad keys. */
export function natsCheck(env: EnvValues<typeof natsEnv>, issue: ConfigIssue): void {
  try {
    natsCredentialsFrom(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const text of error.issues) {
      const colon = text.indexOf(': ');
      issue(text.slice(0, colon), text.slice(colon + 2));
    }
  }
}
