/**
 * Configuration of the embedded stack (every service in one process). The services' own
 * variables (e.g. BODY_LIMIT_BYTES) pass through to them unchanged; what the stack decides for
 * them (ports, URLs, the database) it passes as typed overrides (start-stack.ts).
 *
 * PUBLIC_URL is an origin: the auth service's issuer and the proxy's audience are built from it.
 */
import { resolve } from 'node:path';
import type { Env } from '@pag/kit';
import { databaseEnv, defineConfig, envOrigin, envPort, natsCheck, processEnv, processFrom } from '@pag/kit';
import { z } from 'zod';

export const stackConfig = defineConfig({
  env: {
    PORT: envPort(8080),
    // OPS_PORT: of the whole process; HOST: where the gateway and the ops listener bind (the
    // internal services stay on loopback); the NATS user runs every service, so has every right.
    ...processEnv(9090),
    PUBLIC_URL: envOrigin.optional(),
    DATA_DIR: z.string().default('.data'),
    DATABASE_URL: databaseEnv.DATABASE_URL.optional(),
    AUDIT_DATABASE_URL: databaseEnv.DATABASE_URL.optional(),
  },
  checks: [natsCheck],
  from: (env) => ({
    ...processFrom(env),
    port: env.PORT,
    /** Unset: http://localhost:<the port actually bound>. */
    publicUrl: env.PUBLIC_URL?.replace(/\/+$/, ''),
    /** Absolute; holds the embedded PostgreSQL cluster and stack.json. */
    dataDir: resolve(env.DATA_DIR),
    /** Set: use this PostgreSQL; unset: run the embedded one under dataDir. */
    databaseUrl: env.DATABASE_URL,
    /**
     * The audit service's login (a member of pag_audit_writer). Unset: the stack makes the role
     * `pag_audit` itself, which needs a DATABASE_URL user that may create roles.
     */
    auditDatabaseUrl: env.AUDIT_DATABASE_URL,
  }),
});

export type StackConfig = ReturnType<typeof stackConfig.parse>;

export function loadStackConfig(env: Env): StackConfig {
  return stackConfig.parse(env);
}
