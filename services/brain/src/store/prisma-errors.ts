/**
 * Prisma's error codes for the constraint violations the brain turns into answers (a unique name
 * taken: CONFLICT; a composite foreign key that does not hold: the persona is not the account's,
 * or is still the default). Tested by code, never by message text.
 */

function prismaCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

/** A unique constraint refused the row (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return prismaCode(error) === 'P2002';
}

/** A foreign key refused the row or the deletion (P2003). */
export function isForeignKeyViolation(error: unknown): boolean {
  return prismaCode(error) === 'P2003';
}
