/**
 * `pnpm --filter @pag/<service> migrate`: applies a service's SQL migrations to DATABASE_URL (what
 * the Kubernetes migration Job runs), recorded as `prisma migrate deploy` records them. Reads
 * DATABASE_URL and LOG_LEVEL only: a migration Job holds none of the service's secrets.
 */
import { z } from 'zod';
import { ConfigError, envLogLevel, envUrl, parseConfig } from '../config/parse-config.ts';
import { runMain } from '../lifecycle/run-main.ts';
import { createLogger } from '../log/logger.ts';
import { applyMigrations } from './migrations.ts';

const MigrateEnv = z.object({
  DATABASE_URL: envUrl.optional(),
  LOG_LEVEL: envLogLevel,
});

export async function runMigrateCommand(
  service: string,
  database: { schema: string; migrationsDir: string },
): Promise<void> {
  await runMain(`${service} migrate`, async () => {
    const env = parseConfig(MigrateEnv, process.env);
    if (env.DATABASE_URL === undefined) {
      throw new ConfigError(['DATABASE_URL: required, names the PostgreSQL to migrate']);
    }
    const logger = createLogger({ service, level: env.LOG_LEVEL });
    const result = await applyMigrations({ databaseUrl: env.DATABASE_URL, ...database, logger });
    process.stdout.write(
      `applied ${result.applied.length}, already applied ${result.alreadyApplied.length}\n`,
    );
  });
}
