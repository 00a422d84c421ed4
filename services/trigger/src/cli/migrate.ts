/**
 * `pnpm --filter @pag/trigger migrate`: applies the trigger service's SQL migrations to
 * DATABASE_URL (kit's runMigrateCommand: DATABASE_URL and LOG_LEVEL only).
 */
import { runMigrateCommand } from '@pag/kit';
import { triggerService } from '../definition.ts';

await runMigrateCommand(triggerService);
