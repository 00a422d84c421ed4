/**
 * The audit service's own database login, made by whoever administers the database (the embedded
 * stack at start, an operator's script elsewhere): a LOGIN role that is a member of
 * pag_audit_writer (created by the migration) and nothing else, so the service may read and append
 * the log and never change it. Idempotent: an existing role gets the password and membership
 * again. Needs a user that may create roles (the embedded PostgreSQL's superuser does).
 */
import { createPrismaClient } from '@pag/kit';
import { auditDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';

/** The login role the embedded stack uses. */
export const AUDIT_LOGIN_ROLE = 'pag_audit';

const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;
/** CREATE ROLE takes no bind parameters: the password is a literal, so only safe characters. */
const SAFE_PASSWORD = /^[A-Za-z0-9_-]{24,}$/;

export interface AuditLogin {
  role: string;
  password: string;
}

/** Makes (or refreshes) the login role; returns the DATABASE_URL the audit service connects with. */
export async function ensureAuditLogin(adminUrl: string, login: AuditLogin): Promise<string> {
  const { role, password } = login;
  if (!PLAIN_NAME.test(role)) throw new TypeError(`not a plain role name: ${role}`);
  if (!SAFE_PASSWORD.test(password))
    throw new TypeError('the audit role password must be 24+ base64url characters');
  const db = createPrismaClient(PrismaClient, { databaseUrl: adminUrl, schema: auditDatabase.schema });
  try {
    await db.$transaction(async (tx) => {
      const existing = await tx.$queryRaw<unknown[]>`SELECT 1 FROM pg_roles WHERE rolname = ${role}`;
      if (existing.length === 0)
        await tx.$executeRawUnsafe(
          `CREATE ROLE "${role}" LOGIN PASSWORD '${password}' IN ROLE pag_audit_writer`,
        );
      else {
        await tx.$executeRawUnsafe(`ALTER ROLE "${role}" LOGIN PASSWORD '${password}'`);
        await tx.$executeRawUnsafe(`GRANT pag_audit_writer TO "${role}"`);
      }
    });
  } finally {
    await db.$disconnect();
  }
  const url = new URL(adminUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}
