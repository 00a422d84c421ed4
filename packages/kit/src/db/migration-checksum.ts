/**
 * Prisma Migrate's checksum of a migration script, computed exactly as prisma-engines does
 * (schema-engine/connectors/schema-connector/src/checksum.rs), so a `_prisma_migrations` row written
 * by us passes `prisma migrate` and one written by Prisma passes us.
 *
 * What is hashed: SHA-256 over the UTF-8 bytes of migration.sql as read, with no normalisation:
 * no trimming, a BOM stays in, and line endings are hashed as they are (CRLF is not turned into LF
 * when the checksum is recorded). The result is 64 lowercase hex digits.
 *
 * How a recorded checksum is compared: Prisma accepts the script as read, the script with every
 * CRLF turned into LF, and the script with every LF turned into CRLF, so a checkout with other line
 * endings (git autocrlf) still matches. Rows written by old engines (prisma-engines issue 1887) hold
 * the hex without zero padding per byte; a recorded checksum whose length is not 64 is compared in
 * that format.
 */
import { createHash } from 'node:crypto';

const CHECKSUM_LENGTH = 64;

/** The checksum Prisma records in `_prisma_migrations.checksum` for this script. */
export function migrationChecksum(script: string): string {
  return sha256(script).toString('hex');
}

/** Whether `recorded` is the checksum of `script`, with Prisma's tolerance for line endings. */
export function checksumMatches(script: string, recorded: string): boolean {
  const candidates = [script, script.replaceAll('\r\n', '\n'), script.replaceAll('\n', '\r\n')];
  const legacyFormat = recorded.length !== 0 && recorded.length !== CHECKSUM_LENGTH;
  return candidates.some((candidate) => {
    const digest = sha256(candidate);
    return (legacyFormat ? unpaddedHex(digest) : digest.toString('hex')) === recorded;
  });
}

function sha256(script: string): Buffer {
  return createHash('sha256').update(script, 'utf8').digest();
}

/** Each byte as hex without a leading zero: the format of engines before the fix of issue 1887. */
function unpaddedHex(digest: Buffer): string {
  return Array.from(digest, (byte) => byte.toString(16)).join('');
}
