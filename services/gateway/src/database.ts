/**
 * Where the gateway's tables live: its own Postgres schema and its SQL migrations.
 */
import { fileURLToPath } from 'node:url';
import type { ServiceDatabase } from '@pag/kit';

export const gatewayDatabase = {
  schema: 'gateway',
  migrationsDir: fileURLToPath(new URL('../prisma/migrations', import.meta.url)),
} as const satisfies ServiceDatabase;
