/**
 * A Content-Security-Policy on every answer of oidc-provider that lets no script run, except the
 * one inline script of its `response_mode=form_post` page (the auto-submitting form that carries
 * the code to the client).
 *
 * oidc-provider renders that page itself (lib/response_modes/form_post.js) and, before writing
 * its inline script, adds the script's SHA-256 to the `script-src` directive of the CSP already
 * set on the response (lib/helpers/script_src_sha.js), but only when such a directive exists. So
 * this middleware sets the policy before oidc-provider handles the request, with a `script-src`
 * that matches nothing by itself: `'report-sample'` is a valid source expression that allows no
 * script (`'none'` may not be combined with the hash oidc-provider appends). The form_post page
 * thus runs exactly its own script; its form may post to the client's registered redirect URI,
 * so form-action stays open there. Pages that set their own policy (pages.ts) replace this one.
 */
import type { Middleware } from 'koa';

export const PROVIDER_POLICY =
  "default-src 'none'; script-src 'report-sample'; base-uri 'none'; frame-ancestors 'none'";

export const scriptPolicy: Middleware = (ctx, next) => {
  ctx.set('Content-Security-Policy', PROVIDER_POLICY);
  return next();
};
