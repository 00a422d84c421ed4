/**
 * Why applying migrations stopped. A start-up error for operators, not an HTTP error: callers test
 * `code`; the message names the migration and says what to do.
 */
export type MigrationErrorCode =
  /** The migrations directory is missing, holds a directory without migration.sql, or is for another provider. */
  | 'MIGRATIONS_DIR_INVALID'
  /** A migration's SQL failed; its transaction was rolled back, so nothing of it stayed. */
  | 'MIGRATION_FAILED'
  /** An applied migration's file changed since (checksum mismatch). */
  | 'MIGRATION_MODIFIED'
  /** `_prisma_migrations` records a migration that started and never finished (Prisma's P3009). */
  | 'FAILED_MIGRATION_RECORDED'
  /** The schema holds tables but no migration history (Prisma's P3005). */
  | 'SCHEMA_NOT_EMPTY'
  /** Another applier held the migration lock for longer than the timeout. */
  | 'MIGRATION_LOCK_TIMEOUT';

export class MigrationError extends Error {
  readonly code: MigrationErrorCode;
  /** The migration directory's name, when one migration is at fault. */
  readonly migration: string | undefined;

  constructor(
    code: MigrationErrorCode,
    message: string,
    options: { migration?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MigrationError';
    this.code = code;
    this.migration = options.migration;
  }
}
