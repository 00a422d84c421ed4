/**
 * The owner's dashboard session: a signed, HttpOnly, SameSite=Lax cookie (Secure when PUBLIC_URL
 * is https) holding the account id and an absolute expiry, signed with koa's app.keys
 * (COOKIE_KEYS). Separate from oidc-provider's own session, which only the OAuth flow uses.
 *
 * Limits a reviewer should know: the cookie is the whole session, so logging out clears it in
 * this browser but a copy taken earlier stays valid until it expires (12 h). Server-side sessions
 * would need a table; see the report of issue 3.
 */
import type { Context } from 'koa';
import type { CookiePolicy } from './csrf.ts';
import { pageCookie } from './csrf.ts';

export const OWNER_COOKIE = 'pag_owner';
export const OWNER_SESSION_SECONDS = 12 * 60 * 60;

export interface OwnerSession {
  accountId: string;
  /** When the session ends, whatever happens. */
  expiresAt: Date;
}

export function startOwnerSession(ctx: Context, accountId: string, policy: CookiePolicy): void {
  const expiresAt = Math.floor(Date.now() / 1000) + OWNER_SESSION_SECONDS;
  ctx.cookies.set(OWNER_COOKIE, `${accountId}.${expiresAt}`, {
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
  const match = value?.match(/^([0-9a-f-]{36})\.(\d{1,12})$/);
  if (!match?.[1] || !match[2]) return null;
  const expiresAt = new Date(Number(match[2]) * 1000);
  if (expiresAt.getTime() <= Date.now()) return null;
  return { accountId: match[1], expiresAt };
}
