/**
 * `pnpm --filter @pag/gateway migrate`: applies the gateway service's SQL migrations to DATABASE_URL (kit's
 * runMigrateCommand: DATABASE_URL and LOG_LEVEL only).
 */
import { runMigrateCommand } from '@pag/kit';
import { gatewayService } from '../definition.ts';

await runMigrateCommand(gatewayService);
