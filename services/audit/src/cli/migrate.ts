/**
 * `pnpm --filter @pag/audit migrate`: applies the audit service's SQL migrations to DATABASE_URL
 * (kit's runMigrateCommand: DATABASE_URL and LOG_LEVEL only). Run it as the role that is to own
 * the audit tables, never as the service's own role: the migration creates the role
 * pag_audit_writer and grants it reading and appending only.
 */
import { runMigrateCommand } from '@pag/kit';
import { auditService } from '../definition.ts';

await runMigrateCommand(auditService);
