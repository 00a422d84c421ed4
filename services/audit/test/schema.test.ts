/**
 * The audit log's Prisma schema and its SQL migrations describe the same tables (kit's schema
 * checks against a real PostgreSQL).
 */
import { describeSchemaChecks } from '@pag/kit/testing/schema-checks';
import { auditDatabase } from '../src/database.ts';

describeSchemaChecks({
  service: 'audit',
  database: auditDatabase,
  schemaFile: new URL('../prisma/schema.prisma', import.meta.url),
  breakingEdit: {
    from: 'reason        String?',
    to: 'reason        String',
    reported: 'audit.records.reason: nullable in the database, NOT NULL in the model',
  },
  migrations: [
    '20261124060000_audit_init',
    '20261124070000_audit_append_batch',
    '20261124220000_audit_append_batch_by_index',
    '20261125000000_audit_append_canonical',
  ],
});
