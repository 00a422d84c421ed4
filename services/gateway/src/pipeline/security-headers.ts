/**
 * Headers every answer carries: API responses are never sniffed, framed, cached by shared caches
 * or given a referrer; on an https origin, Strict-Transport-Security.
 *
 * Answers of routes in the table (JSON, text, and whatever the proxy streams from a third-party
 * service) also get a Content-Security-Policy that lets nothing run or load: a document a browser
 * is tricked into opening from this origin stays inert. (Pages of the auth service — sign-up,
 * login, dashboard — set their own policy there; this step runs after route lookup, so it never
 * applies to them.)
 *
 * CORS, decided: only the gateway's public documents (discovery index, quick-start,
 * capabilities, /openapi.json, /llms.txt: no token, no owner data) allow every origin, without
 * credentials, so browser-based tools can read them. Nothing that takes a token answers CORS:
 * agents are not browser pages on other origins, and a token kept in such a page is one XSS away
 * from being stolen. Simple GETs need no preflight, so OPTIONS is not served.
 */
import type { NextFunction, Request, Response } from 'express';
import { state } from './state.ts';

const HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

const ROUTE_ENTRIES = Object.entries({
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
});

/** CORS of the public documents (see above). */
const PUBLIC_DOCUMENT_ENTRIES = Object.entries({
  'access-control-allow-origin': '*',
  // Let the page read the request id of what it fetched.
  'access-control-expose-headers': 'x-request-id',
  'cross-origin-resource-policy': 'cross-origin',
});

/**
 * HSTS when PUBLIC_URL is https: browsers then never try plain http for this origin for a year
 * (sslstrip on a first visit aside). Set here, the first step, so every answer of the public
 * origin carries it once: the gateway's own, the auth service's pages and protocol endpoints it
 * forwards, the proxy's, and errors. No includeSubDomains (other hosts of the operator's domain
 * are not ours to decide) and no preload. Browsers ignore it over http, so it is left off there.
 */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000';

export function securityHeaders(publicUrl: string) {
  const headers: Record<string, string> = publicUrl.startsWith('https:')
    ? { ...HEADERS, 'strict-transport-security': STRICT_TRANSPORT_SECURITY }
    : HEADERS;
  const entries = Object.entries(headers);
  return function setSecurityHeaders(_req: Request, res: Response, next: NextFunction): void {
    setAll(res, entries);
    next();
  };
}

/** After route lookup: the policy of every route of the table, and CORS for public documents. */
export function routeHeaders(_req: Request, res: Response, next: NextFunction): void {
  setAll(res, ROUTE_ENTRIES);
  const route = state(res).route;
  if (route !== undefined && route.service === 'gateway' && route.auth === 'none') {
    setAll(res, PUBLIC_DOCUMENT_ENTRIES);
  }
  next();
}

/**
 * Node's setHeader, once per header of a list made at start: express's res.set took a new object's
 * keys and ran its content-type and array checks on each of these fixed strings on every answer.
 */
function setAll(res: Response, entries: ReadonlyArray<readonly [string, string]>): void {
  for (const [name, value] of entries) res.setHeader(name, value);
}
