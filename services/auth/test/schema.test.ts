/**
 * The auth service's Prisma schema and its SQL migrations describe the same tables (kit's schema
 * checks against a real PostgreSQL).
 */
import { describeSchemaChecks } from '@pag/kit/testing/schema-checks';
import { authDatabase } from '../src/database.ts';

describeSchemaChecks({
  service: 'auth',
  database: authDatabase,
  schemaFile: new URL('../prisma/schema.prisma', import.meta.url),
  breakingEdit: {
    from: 'consumedAt DateTime? @map("consumed_at")',
    to: 'consumedAt DateTime  @map("consumed_at")',
    reported: 'auth.oidc_payloads.consumed_at: nullable in the database, NOT NULL in the model',
  },
  migrations: [
    '20261123000000_auth_init',
    '20261123100000_agents',
    '20261123120000_grant_lookup',
    '20261123180000_owner_sessions',
    '20261124002500_token_format',
    '20261124060000_audit_outbox',
    '20261124150000_handshake_pickup',
  ],
});
