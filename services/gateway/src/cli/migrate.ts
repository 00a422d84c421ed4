/**
 * `pnpm --filter @pag/gateway migrate`: applies the gateway's SQL migrations to DATABASE_URL (kit's
 * runMigrateCommand: DATABASE_URL and LOG_LEVEL only).
 */
import { runMigrateCommand } from '@pag/kit';
import { gatewayDatabase } from '../database.ts';

await runMigrateCommand('gateway', gatewayDatabase);
