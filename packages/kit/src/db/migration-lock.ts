/**
 * Serialises appliers with the lock `prisma migrate deploy` takes, so our replicas, a migration
 * Job and the Prisma CLI never apply the same migration twice. The key is Prisma's:
 * prisma-engines sql-schema-connector, PostgreSQL flavour, acquire_lock:
 * `SELECT pg_advisory_lock(72707369)`, a session lock on the whole database (not per schema).
 */
import type { ClientBase } from 'pg';
import { MigrationError } from './migration-error.ts';

export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

/** PostgreSQL's SQLSTATE for "lock_not_available", raised when lock_timeout expires. */
const LOCK_NOT_AVAILABLE = '55P03';

export async function acquireMigrationLock(client: ClientBase, timeoutMs: number): Promise<void> {
  // lock_timeout bounds the wait for advisory locks too; Prisma gives up after 10 s, we wait longer
  // by default because the holder may be a replica running a long migration we would run next.
  await client.query(`SET lock_timeout = ${Math.max(1, Math.ceil(timeoutMs))}`);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
  } catch (error) {
    if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) {
      throw new MigrationError(
        'MIGRATION_LOCK_TIMEOUT',
        `Another migration run held the advisory lock ${PRISMA_MIGRATE_LOCK_KEY} for more than ${timeoutMs} ms; ` +
          `find it with: SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = ${PRISMA_MIGRATE_LOCK_KEY}`,
        { cause: error },
      );
    }
    throw error;
  }
  await client.query('RESET lock_timeout');
}

export async function releaseMigrationLock(client: ClientBase): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATE_LOCK_KEY]);
}
