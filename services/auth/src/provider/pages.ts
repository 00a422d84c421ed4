/**
 * The few pages oidc-provider renders itself: its error page and the RP-initiated logout pages.
 * Plain, accessible HTML with no external resources and a CSP that forbids framing; an error shows
 * the OAuth error code and its description (oidc-provider masks 5xx details), never a stack.
 */
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'";
// The logout form ends in a redirect to the client's post_logout_redirect_uri, which browsers
// check against form-action too (its targets are registered URIs): only that page lacks 'self'.
const FORMS_TO_SELF = `${CSP}; form-action 'self'`;

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5}';

export function escapeText(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function send(ctx: KoaContextWithOIDC, title: string, body: string, csp = FORMS_TO_SELF): void {
  ctx.type = 'html';
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeText(title)}</title><style>${STYLE}</style></head>
<body><main><h1>${escapeText(title)}</h1>${body}</main></body></html>`;
}

export const renderError: Configuration['renderError'] = (ctx, out) => {
  send(
    ctx,
    'This sign-in request cannot go on',
    `<p>${escapeText(out.error_description ?? 'Something went wrong.')}</p>
<p>Error code: <code>${escapeText(out.error)}</code></p>
<p>Go back to the application and start again.</p>`,
  );
};

export const logoutSource = (ctx: KoaContextWithOIDC, form: string): void => {
  // `form` is oidc-provider's own hidden form (id op.logoutForm) carrying its CSRF token.
  send(
    ctx,
    'Sign out?',
    `${form}
<p>Sign out of this gateway in this browser?</p>
<p><button type="submit" form="op.logoutForm" name="logout" value="yes">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button></p>`,
    CSP,
  );
};

export const postLogoutSuccessSource = (ctx: KoaContextWithOIDC): void => {
  send(ctx, 'Signed out', '<p>You are signed out. You may close this page.</p>');
};
