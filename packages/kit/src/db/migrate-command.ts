/**
 * `pnpm --filter @pag/<service> migrate`: applies a service's SQL migrations to DATABASE_URL (what
 * the Kubernetes migration Job runs), recorded as `prisma migrate deploy` records them. Reads
 * DATABASE_URL and LOG_LEVEL only (kit's config fragments): a migration Job holds none of the
 * service's secrets. The service is named by its definition (lifecycle/define-service.ts).
 */
import { z } from 'zod';
import { databaseEnv, logEnv } from '../config/fragments.ts';
import { ConfigError, parseConfig } from '../config/parse-config.ts';
import type { AnyServiceDefinition } from '../lifecycle/define-service.ts';
import { runMain } from '../lifecycle/run-main.ts';
import { createLogger } from '../log/logger.ts';
import { applyMigrations } from './migrations.ts';

const MigrateEnv = z.object({
  DATABASE_URL: databaseEnv.DATABASE_URL.optional(),
  ...logEnv,
});

export async function runMigrateCommand(
  definition: Pick<AnyServiceDefinition, 'name' | 'database'>,
): Promise<void> {
  const { name, database } = definition;
  await runMain(`${name} migrate`, async () => {
    const env = parseConfig(MigrateEnv, process.env);
    if (env.DATABASE_URL === undefined) {
      throw new ConfigError(['DATABASE_URL: required, names the PostgreSQL to migrate']);
    }
    const logger = createLogger({ service: name, level: env.LOG_LEVEL });
    const result = await applyMigrations({ databaseUrl: env.DATABASE_URL, ...database, logger });
    process.stdout.write(
      `applied ${result.applied.length}, already applied ${result.alreadyApplied.length}\n`,
    );
  });
}
