/**
 * The trigger service's Prisma schema and its SQL migrations describe the same tables (kit's
 * schema checks against a real PostgreSQL).
 */
import { describeSchemaChecks } from '@pag/kit/testing/schema-checks';
import { triggerDatabase } from '../src/database.ts';

describeSchemaChecks({
  service: 'trigger',
  database: triggerDatabase,
  schemaFile: new URL('../prisma/schema.prisma', import.meta.url),
  breakingEdit: {
    from: 'statusReason       String?   @map("status_reason")',
    to: 'statusReason       String    @map("status_reason")',
    reported: 'trigger.triggers.status_reason: nullable in the database, NOT NULL in the model',
  },
  migrations: ['20261124120000_trigger_init'],
});
