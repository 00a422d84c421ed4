/**
 * The brain's Prisma schema and its SQL migrations describe the same tables (kit's schema checks
 * against a real PostgreSQL).
 */
import { describeSchemaChecks } from '@pag/kit/testing/schema-checks';
import { brainDatabase } from '../src/database.ts';

describeSchemaChecks({
  service: 'brain',
  database: brainDatabase,
  schemaFile: new URL('../prisma/schema.prisma', import.meta.url),
  breakingEdit: {
    from: 'agentId   String?               @map("agent_id")',
    to: 'agentId   String                @map("agent_id")',
    reported: 'brain.conversations.agent_id: nullable in the database, NOT NULL in the model',
  },
  migrations: [
    '20261124000000_brain_init',
    '20261124090000_brain_owner_chat',
    '20261124120000_brain_memory_entry_json',
    '20261124190000_brain_memory_version',
    '20261124230000_brain_context_changes',
  ],
});
