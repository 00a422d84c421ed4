/**
 * Where the audit log's tables live: its own Postgres schema and its SQL migrations (run as the
 * tables' owner; the service itself connects as a role that may only read and append).
 */
import { fileURLToPath } from 'node:url';
import type { ServiceDatabase } from '@pag/kit';

export const auditDatabase = {
  schema: 'audit',
  migrationsDir: fileURLToPath(new URL('../prisma/migrations', import.meta.url)),
} as const satisfies ServiceDatabase;
