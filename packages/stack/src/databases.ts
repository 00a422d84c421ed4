/**
 * Every service's database (its Postgres schema and migrations), migrated in this order by the
 * embedded stack at start and by `pag` before a command touches the data.
 */
import { authDatabase } from '@pag/auth';
import { brainDatabase } from '@pag/brain';
import { gatewayDatabase } from '@pag/gateway';
import type { Logger } from '@pag/kit';
import { applyMigrations } from '@pag/kit';
import { proxyDatabase } from '@pag/proxy';

const DATABASES = [authDatabase, gatewayDatabase, brainDatabase, proxyDatabase];

export async function migrateAll(databaseUrl: string, logger: Logger): Promise<void> {
  for (const database of DATABASES) {
    await applyMigrations({
      databaseUrl,
      schema: database.schema,
      migrationsDir: database.migrationsDir,
      logger,
    });
  }
}
