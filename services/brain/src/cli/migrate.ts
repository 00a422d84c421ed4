/**
 * `pnpm --filter @pag/brain migrate`: applies the brain service's SQL migrations to DATABASE_URL (kit's
 * runMigrateCommand: DATABASE_URL and LOG_LEVEL only).
 */
import { runMigrateCommand } from '@pag/kit';
import { brainService } from '../definition.ts';

await runMigrateCommand(brainService);
