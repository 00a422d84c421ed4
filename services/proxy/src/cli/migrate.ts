/**
 * `pnpm --filter @pag/proxy migrate`: applies the proxy service's SQL migrations to DATABASE_URL (kit's
 * runMigrateCommand: DATABASE_URL and LOG_LEVEL only).
 */
import { runMigrateCommand } from '@pag/kit';
import { proxyService } from '../definition.ts';

await runMigrateCommand(proxyService);
