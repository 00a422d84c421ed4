/**
 * Security headers of every page we render, and the one error handler of our page routers.
 *
 * CSP: nothing loads but inline style; forms post only to our origin; no framing (also
 * X-Frame-Options DENY for old browsers). Pages are never cached (they carry CSRF tokens and
 * account data) and never leak their URL (interaction uids) to another origin through Referer:
 * `same-origin`, not `no-referrer`, because under `no-referrer` browsers send `Origin: null` with
 * the pages' own form posts, which same-origin.ts could not tell from another site's.
 *
 * Errors: expected ones (AppError, oidc-provider's errors below 500) show their message on a
 * plain page; anything else is logged and shown as a generic message. Never a stack trace.
 */

import { AppError } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { Context, Next } from 'koa';
import { html, page } from './html.ts';

const BASE_POLICY = "default-src 'none'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";

/**
 * The CSP with form-action 'self' plus, where a page's form ends in a redirect to an OAuth
 * client, that client's origin: Chrome and Safari apply form-action to every redirect that
 * follows a form submission (w3c/webappsec-csp#8), so the 303 to the client's redirect_uri would
 * be blocked with 'self' alone.
 */
export function contentSecurityPolicy(extraFormTargets: readonly string[] = []): string {
  return `${BASE_POLICY}; form-action ${["'self'", ...extraFormTargets].join(' ')}`;
}

export function setPageHeaders(ctx: Context, extraFormTargets: readonly string[] = []): void {
  ctx.set('Content-Security-Policy', contentSecurityPolicy(extraFormTargets));
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

/** After a POST: on to a page with a 303, so a reload does not repeat the action. */
export function seeOther(ctx: Context, path: string): void {
  ctx.redirect(path);
  ctx.status = 303;
}

/** Renders a page with its status. */
export function sendPage(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

interface ExposedError {
  status: number;
  message: string;
}

/** oidc-provider's errors carry statusCode/expose/error_description; ours are AppError. */
function exposedError(error: unknown): ExposedError | null {
  if (error instanceof AppError) {
    return error.expose ? { status: error.status, message: error.message } : null;
  }
  if (typeof error !== 'object' || error === null) return null;
  const candidate = error as {
    status?: unknown;
    expose?: unknown;
    error_description?: unknown;
    name?: unknown;
  };
  if (typeof candidate.status !== 'number' || candidate.status >= 500 || candidate.expose !== true)
    return null;
  if (candidate.name === 'SessionNotFound') {
    return {
      status: candidate.status,
      message:
        'This sign-in request has expired or was opened in another browser. Go back to the application and start again.',
    };
  }
  const description =
    typeof candidate.error_description === 'string' ? candidate.error_description : undefined;
  return { status: candidate.status, message: description ?? 'The request could not be completed.' };
}

/** Headers on every answer and plain error pages for whatever the routes throw. */
export function pageGuard(logger: Logger) {
  return async function guardPages(ctx: Context, next: Next): Promise<void> {
    setPageHeaders(ctx);
    try {
      await next();
    } catch (error) {
      const exposed = exposedError(error);
      if (exposed) {
        logger.info({ err: error, path: ctx.path }, 'page request refused');
      } else {
        logger.error({ err: error, path: ctx.path }, 'page request failed');
      }
      const status = exposed?.status ?? 500;
      const message = exposed?.message ?? 'Something went wrong on our side. Please try again in a moment.';
      // Headers set by a failing route (e.g. a half-built redirect) must not survive.
      ctx.remove('Location');
      setPageHeaders(ctx);
      if (error instanceof AppError)
        for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      sendPage(
        ctx,
        status,
        page({
          title: status >= 500 ? 'Something went wrong' : 'This did not work',
          body: html`<p>${message}</p>`,
        }),
      );
    }
  };
}
