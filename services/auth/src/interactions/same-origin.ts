/**
 * Refuses a state-changing request (any method but GET, HEAD, OPTIONS) to our pages that a
 * browser says came from another site, before its form is read (403 CROSS_SITE_REQUEST):
 * - `Sec-Fetch-Site` (every current browser sets it; pages cannot): `same-origin` passes, and
 *   `none` (the user's own navigation); `same-site` and `cross-site` are refused: a sibling
 *   subdomain is another site for our forms;
 * - `Origin` (the gateway passes the browser's header through): must be PUBLIC_URL's origin.
 *   `null` (sandboxed documents, or a page whose referrer policy is no-referrer) passes only when
 *   Sec-Fetch-Site says same-origin.
 * A request with neither header passes on to the CSRF token check (csrf.ts): browsers from before
 * 2020 and non-browser clients (curl, scripts) send neither, and a client that is not a browser
 * carries no other site's cookies; the bound CSRF token still protects those (docs/adr/0027).
 */
import { AppError } from '@pag/contracts';
import type { Middleware } from 'koa';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SAME_ORIGIN_SITES = new Set(['same-origin', 'none']);

export function sameOriginPosts(publicUrl: string): Middleware {
  const origin = new URL(publicUrl).origin;
  return (ctx, next) => {
    if (SAFE_METHODS.has(ctx.method)) return next();
    const site = ctx.get('Sec-Fetch-Site');
    const from = ctx.get('Origin');
    const siteVouches = SAME_ORIGIN_SITES.has(site);
    const crossSite =
      (site !== '' && !siteVouches) || (from !== '' && from !== origin && !(from === 'null' && siteVouches));
    if (crossSite) {
      throw new AppError(
        'CROSS_SITE_REQUEST',
        `This form was sent from another site (${from || site}). Open ${origin} yourself and submit it from there.`,
      );
    }
    return next();
  };
}
