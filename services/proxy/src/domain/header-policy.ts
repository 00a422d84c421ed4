/**
 * Which headers cross the proxy, each way.
 *
 * Towards the connected service, nothing of the caller's identity: its Authorization (our token,
 * never theirs), cookies, the gateway's identity and correlation headers (`pag-*`,
 * `x-request-id`) and every client-address header (`X-Forwarded-*`, `Forwarded`, `X-Real-IP`).
 * Nor any header that makes a server take another method or path than the one the scope was
 * checked for (`X-HTTP-Method-Override`, `X-HTTP-Method`, `X-Method-Override`, `X-Original-URL`,
 * `X-Rewrite-URL`; Google's APIs honour the first).
 * The connector's credential is added afterwards, so a caller cannot supply its own either.
 *
 * Back to the caller, nothing that would speak for the gateway's origin: a third party's cookies,
 * CORS grants, HSTS, Alt-Svc, and the security and cache headers the gateway sets on every answer
 * (a third party's `Cache-Control: public` or its own CSP must not replace the gateway's
 * `no-store` and sandbox policy, which http-proxy would otherwise overwrite), nor anything in our
 * `pag-` namespace (the proxy's report of the call to the gateway is one: docs/adr/0069).
 */
import { MessageHeaders } from '@pag/contracts';

const CALLER_ONLY = new Set<string>([
  'authorization',
  'proxy-authorization',
  'cookie',
  'forwarded',
  'x-real-ip',
  ...Object.values(MessageHeaders),
  // Would let a GET, checked as a read, act upstream as another method or at another path.
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'x-original-url',
  'x-rewrite-url',
]);

const ORIGIN_SCOPED = new Set<string>([
  'set-cookie',
  'alt-svc',
  'strict-transport-security',
  'clear-site-data',
  'content-security-policy',
  'content-security-policy-report-only',
  'x-frame-options',
  'x-content-type-options',
  'referrer-policy',
  'cache-control',
  'cross-origin-resource-policy',
  'cross-origin-opener-policy',
  'cross-origin-embedder-policy',
]);

/** Whether an incoming request header stays with us (never sent to the connected service). */
export function isCallerOnlyHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return CALLER_ONLY.has(lower) || lower.startsWith('pag-') || lower.startsWith('x-forwarded-');
}

/** Whether a connected service's response header is dropped before the answer goes back. */
export function isOriginScopedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return ORIGIN_SCOPED.has(lower) || lower.startsWith('access-control-') || lower.startsWith('pag-');
}
