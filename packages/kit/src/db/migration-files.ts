/**
 * Reads a migrations directory in Prisma's layout: one directory per migration holding
 * migration.sql, beside migration_lock.toml. Files (the lock file, a README) are not migrations.
 *
 * Order: by directory name in UTF-16 code-unit order, the same on every machine. Prisma 7's CLI
 * sorts with `localeCompare`; for its names (a 14-digit timestamp, `_`, a name) both orders agree.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MigrationError } from './migration-error.ts';

export interface MigrationFile {
  /** The directory name, recorded as `migration_name`. */
  readonly name: string;
  /** migration.sql as read (UTF-8, untouched: the checksum covers these exact characters). */
  readonly script: string;
}

const LOCK_FILE = 'migration_lock.toml';
const SCRIPT_FILE = 'migration.sql';

export async function readMigrationFiles(migrationsDir: string): Promise<MigrationFile[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true }).catch((error: unknown) => {
    throw new MigrationError(
      'MIGRATIONS_DIR_INVALID',
      `Cannot read the migrations directory ${migrationsDir}`,
      {
        cause: error,
      },
    );
  });
  await assertPostgresLockFile(migrationsDir);
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Promise.all(
    names.map(async (name) => {
      const script = await readFile(join(migrationsDir, name, SCRIPT_FILE), 'utf8').catch(
        (error: unknown) => {
          throw new MigrationError(
            'MIGRATIONS_DIR_INVALID',
            `Migration ${name} has no readable ${SCRIPT_FILE}`,
            {
              migration: name,
              cause: error,
            },
          );
        },
      );
      return { name, script };
    }),
  );
}

/** Like Prisma (P3019), refuses migrations written for another database. A missing lock file is fine. */
async function assertPostgresLockFile(migrationsDir: string): Promise<void> {
  const content = await readFile(join(migrationsDir, LOCK_FILE), 'utf8').catch(() => undefined);
  if (content === undefined) return;
  const provider = /^\s*provider\s*=\s*"([^"]*)"/m.exec(content)?.[1];
  if (provider !== undefined && provider !== 'postgresql') {
    throw new MigrationError(
      'MIGRATIONS_DIR_INVALID',
      `${join(migrationsDir, LOCK_FILE)} says provider "${provider}"; these migrations are not for PostgreSQL`,
    );
  }
}
