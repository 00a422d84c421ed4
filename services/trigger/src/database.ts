/**
 * Where the trigger service's tables live: its own Postgres schema and its SQL migrations.
 */
import { fileURLToPath } from 'node:url';
import type { ServiceDatabase } from '@pag/kit';

export const triggerDatabase = {
  schema: 'trigger',
  migrationsDir: fileURLToPath(new URL('../prisma/migrations', import.meta.url)),
} as const satisfies ServiceDatabase;
