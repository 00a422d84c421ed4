/**
 * The owner's own sign-up, sign-in and sign-out, and the minimal dashboard page.
 *
 * What it enforces: CSRF tokens on every POST; sign-in throttled like the OAuth login (same
 * AccountStore.signIn, same counters), answering 429 with Retry-After; the same message for an
 * unknown email and a wrong password; sign-up says plainly when an email is taken; after sign-up
 * or sign-in a 303 to /dashboard/tokens; a dashboard without a session goes to /login.
 * The session cookie is owner-session.ts.
 */
import { Router } from '@koa/router';
import { AppError } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { Context } from 'koa';
import type { AccountStore } from '../accounts/account-store.ts';
import type { CookiePolicy } from './csrf.ts';
import { checkCsrf, csrfToken } from './csrf.ts';
import { formBody, formFields } from './form-body.ts';
import { dashboardPage, ownerLoginPage, signupPage } from './owner-pages.ts';
import { currentOwner, endOwnerSession, startOwnerSession } from './owner-session.ts';
import { pageGuard, sendPage } from './page-security.ts';

export interface OwnerRouterOptions {
  accounts: AccountStore;
  logger: Logger;
  /** `publicUrl`: PUBLIC_URL without a trailing slash; https makes every cookie Secure. */
  config: { publicUrl: string };
}

/** Where an owner lands after signing in (the dashboards of issue 4). */
export const AFTER_SIGN_IN = '/dashboard/tokens';

function seeOther(ctx: Context, path: string): void {
  ctx.redirect(path);
  ctx.status = 303;
}

export function createOwnerRouter({ accounts, logger, config }: OwnerRouterOptions): Router {
  const router = new Router();
  const cookies: CookiePolicy = { secure: config.publicUrl.startsWith('https:') };

  router.use(pageGuard(logger));

  router.get('/signup', (ctx) => {
    sendPage(ctx, 200, signupPage({ csrf: csrfToken(ctx, cookies) }));
  });

  router.post('/signup', formBody, async (ctx) => {
    const form = formFields(ctx);
    checkCsrf(ctx, form);
    const email = form.email ?? '';
    const again = (status: number, error: string) =>
      sendPage(ctx, status, signupPage({ csrf: csrfToken(ctx, cookies), email, error }));
    if ((form.password ?? '') !== (form.confirm ?? '')) return again(400, 'The two passwords differ.');
    try {
      const account = await accounts.create({ email, password: form.password ?? '' });
      logger.info({ accountId: account.id }, 'owner account created');
      startOwnerSession(ctx, account.id, cookies);
      seeOther(ctx, AFTER_SIGN_IN);
    } catch (error) {
      if (error instanceof AppError && error.expose)
        return again(error.status === 409 ? 409 : 400, error.message);
      throw error;
    }
  });

  router.get('/login', (ctx) => {
    if (currentOwner(ctx)) return seeOther(ctx, AFTER_SIGN_IN);
    sendPage(ctx, 200, ownerLoginPage({ csrf: csrfToken(ctx, cookies) }));
  });

  router.post('/login', formBody, async (ctx) => {
    const form = formFields(ctx);
    checkCsrf(ctx, form);
    const email = form.email ?? '';
    const again = (status: number, error: string) =>
      sendPage(ctx, status, ownerLoginPage({ csrf: csrfToken(ctx, cookies), email, error }));
    const result = await accounts.signIn(email, form.password ?? '', ctx.ip || undefined);
    if (result.outcome === 'throttled') {
      ctx.set('Retry-After', String(result.retryAfterSeconds));
      return again(429, `Too many attempts. Try again in ${result.retryAfterSeconds} s.`);
    }
    if (result.outcome === 'rejected') return again(401, 'The email or password is wrong.');
    logger.info({ accountId: result.account.id }, 'owner signed in');
    startOwnerSession(ctx, result.account.id, cookies);
    seeOther(ctx, AFTER_SIGN_IN);
  });

  router.post('/logout', formBody, (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    endOwnerSession(ctx, cookies);
    seeOther(ctx, '/login');
  });

  // Issue 4 replaces /dashboard/tokens with the token list; until then both say who is signed in.
  router.get(['/dashboard', AFTER_SIGN_IN], async (ctx) => {
    const session = currentOwner(ctx);
    const account = session ? await accounts.findById(session.accountId) : null;
    if (!account) {
      endOwnerSession(ctx, cookies);
      return seeOther(ctx, '/login');
    }
    sendPage(
      ctx,
      200,
      dashboardPage({ csrf: csrfToken(ctx, cookies), email: account.email, plan: account.plan }),
    );
  });

  return router;
}
