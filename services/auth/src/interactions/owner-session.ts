/**
 * The owner's dashboard session: a signed, HttpOnly, SameSite=Lax cookie (Secure when PUBLIC_URL
 * is https) holding the account id, an absolute expiry and when it was issued (ms), signed with
 * koa's app.keys (COOKIE_KEYS). Separate from oidc-provider's own session, which only the OAuth
 * flow uses.
 *
 * Signing out clears the cookie here and ends every session of the owner issued until then
 * (accounts.sessions_valid_after, checked by requireOwner with the account it loads anyway), so a
 * copy of the cookie taken earlier stops working too (docs/adr/0020).
 */
import type { Context } from 'koa';
import type { CookiePolicy } from './page-cookie.ts';
import { pageCookie } from './page-cookie.ts';

export const OWNER_COOKIE = 'pag_owner';
export const OWNER_SESSION_SECONDS = 12 * 60 * 60;

export interface OwnerSession {
  accountId: string;
  /** When the session ends, whatever happens. */
  expiresAt: Date;
  /** When it began: a sign-out after that ends it. */
  issuedAt: Date;
}

export function startOwnerSession(ctx: Context, accountId: string, policy: CookiePolicy): void {
  const issuedAt = Date.now();
  const expiresAt = Math.floor(issuedAt / 1000) + OWNER_SESSION_SECONDS;
  ctx.cookies.set(OWNER_COOKIE, `${accountId}.${expiresAt}.${issuedAt}`, {
    ...pageCookie(policy),
    maxAge: OWNER_SESSION_SECONDS * 1000,
  });
}

export function endOwnerSession(ctx: Context, policy: CookiePolicy): void {
  ctx.cookies.set(OWNER_COOKIE, null, pageCookie(policy));
}

/**
 * The signed-in owner of this request, or null (no cookie, a bad signature, expired). The account
 * itself may have been deleted since: load it with AccountStore.findById before trusting more.
 */
export function currentOwner(ctx: Context): OwnerSession | null {
  const value = ctx.cookies.get(OWNER_COOKIE, { signed: true });
  const match = value?.match(/^([0-9a-f-]{36})\.(\d{1,12})(?:\.(\d{1,15}))?$/);
  if (!match?.[1] || !match[2]) return null;
  const expiresAt = new Date(Number(match[2]) * 1000);
  if (expiresAt.getTime() <= Date.now()) return null;
  // A cookie made before the issue time was recorded: it began a whole session length earlier.
  const issuedAt = new Date(
    match[3] === undefined ? expiresAt.getTime() - OWNER_SESSION_SECONDS * 1000 : Number(match[3]),
  );
  return { accountId: match[1], expiresAt, issuedAt };
}

/** Whether the account ended its sessions (signed out) after this one began. */
export function sessionEnded(session: OwnerSession, account: { sessionsValidAfter: Date | null }): boolean {
  return account.sessionsValidAfter !== null && session.issuedAt <= account.sessionsValidAfter;
}
