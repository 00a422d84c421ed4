/**
 * Every dashboard route runs for a signed-in owner: requireOwner loads the account from the owner
 * session (a missing, expired, signed-out or orphaned session goes to /login with a 303) and puts it on
 * ctx.state.owner, with the CSRF token for the page's forms. Every store call of a dashboard
 * route names owner.id: that is the tenancy boundary.
 */
import type { Context, Middleware } from 'koa';
import { csrfToken } from '../interactions/csrf.ts';
import { currentOwner, endOwnerSession, sessionEnded } from '../interactions/owner-session.ts';
import type { CookiePolicy } from '../interactions/page-cookie.ts';
import { seeOther } from '../interactions/page-security.ts';
import type { AccountStore } from '../store/account-store.ts';

export interface OwnerState {
  id: string;
  email: string;
  plan: string;
  /** The CSRF token to put in this page's forms. */
  csrf: string;
}

export function requireOwner(accounts: AccountStore, cookies: CookiePolicy): Middleware {
  return async (ctx, next) => {
    const session = currentOwner(ctx);
    const found = session ? await accounts.findById(session.accountId) : null;
    const account = session && found && !sessionEnded(session, found) ? found : null;
    if (!account) {
      endOwnerSession(ctx, cookies);
      // Back here after signing in (a claim link opened while signed out keeps its code).
      const next = ctx.method === 'GET' ? `?next=${encodeURIComponent(ctx.originalUrl)}` : '';
      return seeOther(ctx, `/login${next}`);
    }
    ctx.state.owner = {
      id: account.id,
      email: account.email,
      plan: account.plan,
      csrf: csrfToken(ctx, cookies),
    } satisfies OwnerState;
    await next();
  };
}

export function ownerOf(ctx: Context): OwnerState {
  return ctx.state.owner as OwnerState;
}
