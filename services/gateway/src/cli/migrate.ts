/**
 * `pnpm --filter @pag/gateway migrate`: applies the gateway's SQL migrations to DATABASE_URL
 * (what the Kubernetes migration Job runs), recorded as `prisma migrate deploy` records them.
 */
import { applyMigrations, ConfigError, createLogger, runMain } from '@pag/kit';
import { loadGatewayConfig } from '../config.ts';
import { gatewayDatabase } from '../database.ts';

await runMain('gateway migrate', async () => {
  const config = loadGatewayConfig(process.env);
  if (config.databaseUrl === undefined) {
    throw new ConfigError(['DATABASE_URL: required, names the PostgreSQL to migrate']);
  }
  const logger = createLogger({ service: 'gateway', level: config.logLevel });
  const result = await applyMigrations({ databaseUrl: config.databaseUrl, ...gatewayDatabase, logger });
  process.stdout.write(`applied ${result.applied.length}, already applied ${result.alreadyApplied.length}\n`);
});
