/**
 * Every service's database (its Postgres schema and migrations, from its definition), migrated in
 * this order by the embedded stack at start and by `pag` before a command touches the data.
 */
import { auditService } from '@pag/audit';
import { authService } from '@pag/auth';
import { brainService } from '@pag/brain';
import { gatewayService } from '@pag/gateway';
import type { AnyServiceDefinition, Logger } from '@pag/kit';
import { applyMigrations } from '@pag/kit';
import { proxyService } from '@pag/proxy';
import { triggerService } from '@pag/trigger';

const MIGRATED: readonly AnyServiceDefinition[] = [
  authService,
  gatewayService,
  brainService,
  proxyService,
  triggerService,
  auditService,
];

export async function migrateAll(databaseUrl: string, logger: Logger): Promise<void> {
  for (const { database } of MIGRATED) {
    await applyMigrations({
      databaseUrl,
      schema: database.schema,
      migrationsDir: database.migrationsDir,
      logger,
    });
  }
}
