/**
 * The proxy's Prisma schema and its SQL migrations describe the same tables (kit's schema checks
 * against a real PostgreSQL).
 */
import { describeSchemaChecks } from '@pag/kit/testing/schema-checks';
import { proxyDatabase } from '../src/database.ts';

describeSchemaChecks({
  service: 'proxy',
  database: proxyDatabase,
  schemaFile: new URL('../prisma/schema.prisma', import.meta.url),
  breakingEdit: {
    from: 'expiresAt      DateTime?      @map("expires_at")',
    to: 'expiresAt      DateTime       @map("expires_at")',
    reported: 'proxy.vault_tokens.expires_at: nullable in the database, NOT NULL in the model',
  },
  migrations: [
    '20261124000000_proxy_init',
    '20261124180000_connect_flow',
    '20261124190000_proxy_credential_changes',
    '20261124200000_vault_envelope',
    '20261124210000_owner_connectors',
  ],
});
