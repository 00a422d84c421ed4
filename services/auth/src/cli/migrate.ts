/**
 * `pnpm --filter @pag/auth migrate`: applies the auth service's SQL migrations to DATABASE_URL
 * (what the Kubernetes migration Job runs), recorded as `prisma migrate deploy` records them.
 * Reads DATABASE_URL and LOG_LEVEL only: a migration Job holds no signing or cookie secrets.
 */
import {
  applyMigrations,
  ConfigError,
  createLogger,
  envLogLevel,
  envUrl,
  parseConfig,
  runMain,
} from '@pag/kit';
import { z } from 'zod';
import { authDatabase } from '../database.ts';

const MigrateEnv = z.object({
  DATABASE_URL: envUrl.optional(),
  LOG_LEVEL: envLogLevel,
});

await runMain('auth migrate', async () => {
  const env = parseConfig(MigrateEnv, process.env);
  if (env.DATABASE_URL === undefined) {
    throw new ConfigError(['DATABASE_URL: required, names the PostgreSQL to migrate']);
  }
  const logger = createLogger({ service: 'auth', level: env.LOG_LEVEL });
  const result = await applyMigrations({ databaseUrl: env.DATABASE_URL, ...authDatabase, logger });
  process.stdout.write(`applied ${result.applied.length}, already applied ${result.alreadyApplied.length}\n`);
});
