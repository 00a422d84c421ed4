/**
 * `pnpm --filter @pag/brain migrate`: applies the brain's SQL migrations to DATABASE_URL (kit's
 * runMigrateCommand: DATABASE_URL and LOG_LEVEL only).
 */
import { runMigrateCommand } from '@pag/kit';
import { brainDatabase } from '../database.ts';

await runMigrateCommand('brain', brainDatabase);
