/**
 * CSRF protection for every form we serve: a double-submit token. A random token lives in a
 * signed, HttpOnly, SameSite=Lax cookie and in a hidden field of each form; a POST passes only
 * when both are present and equal. Signing (koa's app.keys = COOKIE_KEYS) means a sibling site
 * that can write cookies for our domain still cannot forge a matching pair.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '@pag/contracts';
import type { Context } from 'koa';
import type { SafeHtml } from './html.ts';
import { html } from './html.ts';

export const CSRF_COOKIE = 'pag_csrf';
export const CSRF_FIELD = '_csrf';

export interface CookiePolicy {
  /** Whether cookies get the Secure flag (PUBLIC_URL is https). */
  secure: boolean;
}

/** How our page cookies are set: signed, HttpOnly, SameSite=Lax, for the whole origin. */
export function pageCookie(policy: CookiePolicy) {
  return {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure: policy.secure,
    path: '/',
    overwrite: true,
  } as const;
}

/** The token of this browser, set when it has none; put it in every form with `csrfField`. */
export function csrfToken(ctx: Context, policy: CookiePolicy): string {
  const existing = ctx.cookies.get(CSRF_COOKIE, { signed: true });
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomBytes(32).toString('base64url');
  ctx.cookies.set(CSRF_COOKIE, token, pageCookie(policy));
  return token;
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

/** Throws a 403 unless the form's token matches the cookie's. */
export function checkCsrf(ctx: Context, form: Record<string, string>): void {
  const cookie = ctx.cookies.get(CSRF_COOKIE, { signed: true });
  const field = form[CSRF_FIELD];
  const valid =
    cookie !== undefined &&
    field !== undefined &&
    cookie.length === field.length &&
    timingSafeEqual(Buffer.from(cookie), Buffer.from(field));
  if (!valid) {
    throw new AppError(
      'INVALID_REQUEST',
      'This form has expired or did not come from this site. Go back, reload the page and submit it again.',
      { status: 403 },
    );
  }
}
