/**
 * Configuration of the embedded stack (every service in one process). The services' own
 * variables (e.g. BODY_LIMIT_BYTES) pass through to them unchanged.
 */
import { resolve } from 'node:path';
import type { Env } from '@pag/kit';
import { envLogLevel, envPort, envUrl, parseConfig } from '@pag/kit';
import { z } from 'zod';

const StackEnv = z.object({
  PORT: envPort(8080),
  OPS_PORT: envPort(9090),
  PUBLIC_URL: envUrl.optional(),
  DATA_DIR: z.string().default('.data'),
  DATABASE_URL: envUrl.optional(),
  NATS_URL: z.string().optional(),
  LOG_LEVEL: envLogLevel,
});

export interface StackConfig {
  port: number;
  /** Port of /healthz, /readyz and /metrics for the whole process. */
  opsPort: number;
  /** Unset: http://localhost:<the port actually bound>. */
  publicUrl: string | undefined;
  /** Absolute; holds the embedded PostgreSQL cluster and stack.json. */
  dataDir: string;
  /** Set: use this PostgreSQL; unset: run the embedded one under dataDir. */
  databaseUrl: string | undefined;
  /** Set: use this NATS; unset: the in-memory bus. */
  natsUrl: string | undefined;
  logLevel: string;
}

export function loadStackConfig(env: Env): StackConfig {
  const parsed = parseConfig(StackEnv, env);
  return {
    port: parsed.PORT,
    opsPort: parsed.OPS_PORT,
    publicUrl: parsed.PUBLIC_URL?.replace(/\/+$/, ''),
    dataDir: resolve(parsed.DATA_DIR),
    databaseUrl: parsed.DATABASE_URL,
    natsUrl: parsed.NATS_URL,
    logLevel: parsed.LOG_LEVEL,
  };
}
