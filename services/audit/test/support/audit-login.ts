/**
 * The audit service's database login for tests, made as the embedded stack makes it
 * (ensureAuditLogin, as the superuser, after the migrations): a LOGIN role that is a member of
 * pag_audit_writer and nothing else. Returns the DATABASE_URL the service connects with.
 */
import { randomBytes } from 'node:crypto';
import { AUDIT_LOGIN_ROLE, ensureAuditLogin } from '../../src/store/login-role.ts';

/** A login role with a fresh password (the embedded stack's own role name unless told another). */
export function createAuditLogin(superuserUrl: string, role = AUDIT_LOGIN_ROLE): Promise<string> {
  return ensureAuditLogin(superuserUrl, { role, password: randomBytes(24).toString('base64url') });
}

/** A fresh checkpoint signing key (AUDIT_SIGNING_KEY): base64url of a 32-byte Ed25519 seed. */
export function newSigningKey(): string {
  return randomBytes(32).toString('base64url');
}
