/**
 * `pnpm --filter @pag/auth migrate`: applies the auth service's SQL migrations to DATABASE_URL (kit's
 * runMigrateCommand: DATABASE_URL and LOG_LEVEL only).
 */
import { runMigrateCommand } from '@pag/kit';
import { authService } from '../definition.ts';

await runMigrateCommand(authService);
