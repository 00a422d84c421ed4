/**
 * Which error codes a route can answer, derived from what the route table says about it: each
 * pipeline step that refuses something refuses it for every route of a kind (a body, a token, a
 * scope, a plan, a bus subject, a third party), so the route's fields decide which refusals apply.
 * The route's own `errors` add what its service alone decides (NOT_FOUND, CONFLICT…). The contract
 * test (test/openapi-contract.test.ts) fails on any answer whose code is not listed here.
 *
 * Not listed: 405 METHOD_NOT_ALLOWED (an undocumented method on a documented path; OpenAPI
 * documents operations, not their absence) and 499 CLIENT_CLOSED_REQUEST (recorded in the audit
 * log when the client went away; nobody receives it).
 */
import { ErrorCatalogue, type ErrorCode, errorCodes } from '../errors.ts';
import type { RouteDefinition } from '../routes/route-types.ts';

/** Every code the catalogue gives this status (a new 401 code is every bearer route's at once). */
const withStatus = (status: number): ErrorCode[] =>
  errorCodes.filter((code) => ErrorCatalogue[code].status === status);

/** A failure of whoever answers. */
const EVERY_ROUTE: readonly ErrorCode[] = ['INTERNAL_ERROR'];
/** json-body.ts and validate-body.ts: a JSON body, bounded, matching the route's schema. */
const JSON_BODY: readonly ErrorCode[] = [
  'INVALID_REQUEST',
  'INVALID_TEXT',
  'MALFORMED_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
];
/** kit's authenticate: rejected tokens, too many of them from one address, no auth service. */
const BEARER: readonly ErrorCode[] = [...withStatus(401), 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'];
/** A service reached over the bus (dispatch.ts) or over HTTP (forward-auth, forward-proxy). */
const DISPATCHED: readonly ErrorCode[] = ['SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT'];
const FORWARDED: readonly ErrorCode[] = [...DISPATCHED, 'UPSTREAM_ERROR'];

export function routeErrorCodes(route: RouteDefinition, paramCount: number): ErrorCode[] {
  const codes = new Set<ErrorCode>(EVERY_ROUTE);
  const add = (list: readonly ErrorCode[]) => {
    for (const code of list) codes.add(code);
  };
  // The auth service's own paths are forwarded before route lookup (forward-auth.ts): no gateway
  // step but the forwarding itself touches them.
  const forwardedToAuth = route.service === 'auth' && route.subject === null;
  if (!forwardedToAuth) add(['TOKEN_IN_QUERY']);
  if (route.requestBody !== null) add(JSON_BODY);
  if (route.query !== null) add(['INVALID_REQUEST']);
  // A parameter that is not one safe segment (or breaks its pattern) matches no route.
  if (paramCount > 0) add(['ROUTE_NOT_FOUND']);
  if (route.auth === 'bearer') add(BEARER);
  if (route.auth === 'bearer' && (route.scope !== null || route.challengeScopes !== null))
    add(['INSUFFICIENT_SCOPE']);
  if (route.plan !== null) add(['PLAN_REQUIRED']);
  // count-usage.ts: limits per agent; counts that cannot be taken are a 503.
  if (route.auth === 'bearer' && route.countsUsage) add(['USAGE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE']);
  if (route.subject !== null) add(DISPATCHED);
  else if (route.service !== 'gateway') add(FORWARDED);
  if (route.upstream) add(['UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT']);
  add(route.errors);
  return [...codes];
}

/** The codes by the status they are answered with, statuses ascending. */
export function codesByStatus(codes: readonly ErrorCode[]): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ErrorCatalogue[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}
