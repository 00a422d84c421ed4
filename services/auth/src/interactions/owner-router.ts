/**
 * The owner's own sign-up, sign-in and sign-out, and the minimal dashboard page.
 *
 * What it enforces: every POST from our own origin (same-origin.ts) with the CSRF token (csrf.ts); sign-in throttled like the OAuth login (same
 * AccountStore.signIn, same counters), answering 429 with Retry-After; the same message for an
 * unknown email and a wrong password; sign-up says plainly when an email is taken; after sign-up
 * or sign-in a 303 to /dashboard/tokens; a dashboard without a session goes to /login.
 * The session cookie is owner-session.ts.
 */
import { Router } from '@koa/router';
import { AppError } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { AccountStore } from '../store/account-store.ts';
import { checkCsrf, csrfToken } from './csrf.ts';
import { formBody, formFields } from './form-body.ts';
import { ownerLoginPage, signupPage } from './owner-pages.ts';
import { ownerRequest } from './owner-request.ts';
import { currentOwner, endOwnerSession, startOwnerSession } from './owner-session.ts';
import type { CookiePolicy } from './page-cookie.ts';
import { pageGuard, seeOther, sendPage } from './page-security.ts';
import { sameOriginPosts } from './same-origin.ts';

export interface OwnerRouterOptions {
  accounts: AccountStore;
  logger: Logger;
  /** `publicUrl`: PUBLIC_URL without a trailing slash; https makes every cookie Secure. */
  config: { publicUrl: string };
}

/** Where an owner lands after signing in (the dashboards of issue 4). */
export const AFTER_SIGN_IN = '/dashboard/tokens';

/**
 * Where to go after signing in, when a dashboard page sent the owner to /login (e.g. a claim link
 * opened while signed out): only a path of our own dashboard, never another origin.
 */
export function dashboardPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('/dashboard') || value.length > 2048) return undefined;
  const url = URL.parse(value, 'http://origin.invalid');
  if (url === null || url.origin !== 'http://origin.invalid') return undefined;
  if (url.pathname !== '/dashboard' && !url.pathname.startsWith('/dashboard/')) return undefined;
  return `${url.pathname}${url.search}`;
}

export function createOwnerRouter({ accounts, logger, config }: OwnerRouterOptions): Router {
  const router = new Router();
  const cookies: CookiePolicy = { secure: config.publicUrl.startsWith('https:') };

  router.use(pageGuard(logger));
  router.use(sameOriginPosts(config.publicUrl));

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
      const account = await accounts.create({ email, password: form.password ?? '' }, ownerRequest(ctx));
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
    const next = dashboardPath(ctx.query.next);
    if (currentOwner(ctx)) return seeOther(ctx, next ?? AFTER_SIGN_IN);
    sendPage(ctx, 200, ownerLoginPage({ csrf: csrfToken(ctx, cookies), next }));
  });

  router.post('/login', formBody, async (ctx) => {
    const form = formFields(ctx);
    checkCsrf(ctx, form);
    const email = form.email ?? '';
    const next = dashboardPath(form.next);
    const again = (status: number, error: string) =>
      sendPage(ctx, status, ownerLoginPage({ csrf: csrfToken(ctx, cookies), email, error, next }));
    const result = await accounts.signIn(email, form.password ?? '', ctx.ip || undefined, ownerRequest(ctx));
    if (result.outcome === 'throttled') {
      ctx.set('Retry-After', String(result.retryAfterSeconds));
      return again(429, `Too many attempts. Try again in ${result.retryAfterSeconds} s.`);
    }
    if (result.outcome === 'rejected') return again(401, 'The email or password is wrong.');
    logger.info({ accountId: result.account.id }, 'owner signed in');
    startOwnerSession(ctx, result.account.id, cookies);
    seeOther(ctx, next ?? AFTER_SIGN_IN);
  });

  router.post('/logout', formBody, async (ctx) => {
    checkCsrf(ctx, formFields(ctx));
    const session = currentOwner(ctx);
    // Every session of this owner until now ends, copies of the cookie included.
    if (session !== null) await accounts.endSessions(session.accountId, ownerRequest(ctx));
    endOwnerSession(ctx, cookies);
    seeOther(ctx, '/login');
  });

  return router;
}
