/**
 * Configuration of the embedded stack (every service in one process). The services' own
 * variables (e.g. BODY_LIMIT_BYTES) pass through to them unchanged.
 */
import { resolve } from 'node:path';
import type { Env, NatsCredentials } from '@pag/kit';
import { envLogLevel, envPort, envUrl, natsCredentialsEnv, natsCredentialsFrom, parseConfig } from '@pag/kit';
import { z } from 'zod';

const StackEnv = z.object({
  PORT: envPort(8080),
  OPS_PORT: envPort(9090),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: envUrl.optional(),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: envUrl.optional(),
  NATS_URL: z.string().optional(),
  ...natsCredentialsEnv,
  LOG_LEVEL: envLogLevel,
});

export interface StackConfig {
  port: number;
  /** Port of /healthz, /readyz and /metrics for the whole process. */
  opsPort: number;
  /** Where the gateway and the ops listener bind (HOST); the internal services stay on loopback. */
  host: string;
  /** Unset: http://localhost:<the port actually bound>. */
  publicUrl: string | undefined;
  /** Absolute; holds the embedded PostgreSQL cluster and stack.json. */
  dataDir: string;
  /** Set: use this PostgreSQL; unset: run the embedded one under dataDir. */
  databaseUrl: string | undefined;
  /** Set: use this NATS; unset: the in-memory bus. */
  natsUrl: string | undefined;
  /** The stack's NATS user: one process running every service needs every service's rights. */
  natsCredentials: NatsCredentials | undefined;
  logLevel: string;
}

export function loadStackConfig(env: Env): StackConfig {
  const parsed = parseConfig(StackEnv, env);
  return {
    port: parsed.PORT,
    opsPort: parsed.OPS_PORT,
    host: parsed.HOST,
    publicUrl: parsed.PUBLIC_URL?.replace(/\/+$/, ''),
    dataDir: resolve(parsed.DATA_DIR),
    databaseUrl: parsed.DATABASE_URL,
    natsUrl: parsed.NATS_URL,
    natsCredentials: natsCredentialsFrom(parsed),
    logLevel: parsed.LOG_LEVEL,
  };
}
