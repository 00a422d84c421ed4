/**
 * The audit service's database login for tests, made the way an operator (or the embedded stack)
 * makes it: as the superuser, after the migrations, a LOGIN role that is a member of
 * pag_audit_writer and nothing else. Returns the DATABASE_URL the service connects with.
 */
import { randomBytes } from 'node:crypto';
import { createPrismaClient } from '@pag/kit';
import { auditDatabase } from '../../src/database.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';

/** The role name the embedded stack uses too. */
export const AUDIT_LOGIN_ROLE = 'pag_audit';

export async function createAuditLogin(superuserUrl: string, role = AUDIT_LOGIN_ROLE): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(role)) throw new TypeError(`not a plain role name: ${role}`);
  // Hex: a literal that needs no quoting (CREATE ROLE takes no bind parameters).
  const password = randomBytes(24).toString('hex');
  const db = createPrismaClient(PrismaClient, { databaseUrl: superuserUrl, schema: auditDatabase.schema });
  try {
    await db.$executeRawUnsafe(`CREATE ROLE "${role}" LOGIN PASSWORD '${password}' IN ROLE pag_audit_writer`);
  } finally {
    await db.$disconnect();
  }
  const url = new URL(superuserUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}

/** A fresh checkpoint signing key (AUDIT_SIGNING_KEY): base64url of a 32-byte Ed25519 seed. */
export function newSigningKey(): string {
  return randomBytes(32).toString('base64url');
}
