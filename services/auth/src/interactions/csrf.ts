/**
 * CSRF protection for every form we serve (with same-origin.ts, which refuses cross-site posts
 * first). A random secret lives in a signed, HttpOnly, SameSite=Lax cookie; each form carries a
 * token derived from it and from the owner's session:
 *
 *   token = HMAC-SHA-256(COOKIE_KEYS[0], secret ‖ owner session), base64url
 *
 * where the owner session is the signed-in owner's account id and session start (empty when
 * signed out). A POST passes only when the field equals the token recomputed from this request's
 * cookies. So a token works only with the session it was made for: someone who plants their own
 * CSRF cookie and token in a victim's browser (a sibling site writing cookies for our domain)
 * cannot submit a form as the victim, because the victim's session changes the token
 * (docs/adr/0027). Signing in or out changes the session, so forms rendered before then must be
 * reloaded. Older COOKIE_KEYS still verify, so rotating keys does not break open forms.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '@pag/contracts';
import type { Context } from 'koa';
import type { SafeHtml } from './html.ts';
import { html } from './html.ts';
import { currentOwner } from './owner-session.ts';
import type { CookiePolicy } from './page-cookie.ts';
import { pageCookie } from './page-cookie.ts';

export const CSRF_COOKIE = 'pag_csrf';
export const CSRF_FIELD = '_csrf';

const SECRET = /^[A-Za-z0-9_-]{43}$/;

/** koa's app.keys (COOKIE_KEYS): the same keys that sign our cookies. */
function keysOf(ctx: Context): string[] {
  const keys: unknown = ctx.app.keys;
  if (!Array.isArray(keys) || keys.length === 0 || !keys.every((key) => typeof key === 'string'))
    throw new Error('CSRF tokens need the app keys (COOKIE_KEYS) as a list of strings');
  return keys;
}

/** What the token is bound to besides the browser's secret: the owner session, if any. */
function sessionBinding(ctx: Context): string {
  const owner = currentOwner(ctx);
  return owner === null ? '' : `${owner.accountId}.${owner.issuedAt.getTime()}`;
}

function derive(key: string, secret: string, binding: string): Buffer {
  return createHmac('sha256', key).update(`pag-csrf\n${secret}\n${binding}`).digest();
}

/** The token for this browser and session, setting the secret cookie when it has none. */
export function csrfToken(ctx: Context, policy: CookiePolicy): string {
  let secret = ctx.cookies.get(CSRF_COOKIE, { signed: true });
  if (secret === undefined || !SECRET.test(secret)) {
    secret = randomBytes(32).toString('base64url');
    ctx.cookies.set(CSRF_COOKIE, secret, pageCookie(policy));
  }
  const [key = ''] = keysOf(ctx);
  return derive(key, secret, sessionBinding(ctx)).toString('base64url');
}

export function csrfField(token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

/** Throws a 403 unless the form's token is this browser's token for this session. */
export function checkCsrf(ctx: Context, form: Record<string, string>): void {
  const secret = ctx.cookies.get(CSRF_COOKIE, { signed: true });
  const field = Buffer.from(form[CSRF_FIELD] ?? '', 'base64url');
  const binding = sessionBinding(ctx);
  const valid =
    secret !== undefined &&
    SECRET.test(secret) &&
    field.length === 32 &&
    keysOf(ctx).some((key) => timingSafeEqual(derive(key, secret, binding), field));
  if (!valid) {
    throw new AppError(
      'INVALID_REQUEST',
      'This form has expired or did not come from this site. Go back, reload the page and submit it again.',
      { status: 403 },
    );
  }
}
