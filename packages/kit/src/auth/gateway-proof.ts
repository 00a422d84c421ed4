/**
 * Proof that an HTTP request to an internal service (auth, proxy) was sent by the gateway, so a
 * caller who reaches an internal port directly cannot skip the gateway's limits, audit and
 * client-address rules. The gateway signs what it forwards with the deployment's GATEWAY_SECRET:
 *
 *   pag-gateway-proof: t=<unix seconds>,v1=<base64url HMAC-SHA256>
 *
 * over `method`, the path with its query, the request id and `t`. A captured header is worth
 * nothing on another path, method or request, and nothing at all after MAX_SKEW_SECONDS. The body
 * is not covered: it streams through the gateway unread (docs/adr/0024-*).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far the signer's clock may be from the verifier's, either way. */
export const MAX_SKEW_SECONDS = 60;

/** The shortest secret accepted (the config schemas check it too). */
export const GATEWAY_SECRET_MIN_LENGTH = 32;

export interface SignedRequest {
  method: string;
  /** The path and query exactly as sent on the request line, e.g. `/oauth/token?x=1`. */
  path: string;
  /** The X-Request-Id header ('' when absent). */
  requestId: string;
}

/** Why a request's proof was refused; `valid` when it was not. */
export type ProofVerdict = 'valid' | 'missing' | 'malformed' | 'expired' | 'mismatch';

const HEADER_FORMAT = /^t=(\d{1,12}),v1=([A-Za-z0-9_-]{43})$/;

function mac(secret: string, request: SignedRequest, time: number): Buffer {
  // Fields are joined by a newline, which none of them can contain (HTTP forbids it in each).
  const text = [
    'pag-gateway-proof/v1',
    String(time),
    request.method.toUpperCase(),
    request.path,
    request.requestId,
  ];
  return createHmac('sha256', secret).update(text.join('\n')).digest();
}

/** The header value the gateway sends with `request`. */
export function signGatewayRequest(secret: string, request: SignedRequest, nowMs = Date.now()): string {
  const time = Math.floor(nowMs / 1000);
  return `t=${time},v1=${mac(secret, request, time).toString('base64url')}`;
}

/** Checks a request's proof header in constant time; `valid` only for the gateway's own signature, still fresh. */
export function verifyGatewayRequest(
  secret: string,
  request: SignedRequest,
  header: string | undefined,
  nowMs = Date.now(),
): ProofVerdict {
  if (header === undefined || header === '') return 'missing';
  const match = HEADER_FORMAT.exec(header);
  if (match === null) return 'malformed';
  const time = Number(match[1]);
  const given = Buffer.from(match[2] ?? '', 'base64url');
  const expected = mac(secret, request, time);
  const same = given.length === expected.length && timingSafeEqual(given, expected);
  if (!same) return 'mismatch';
  return Math.abs(nowMs / 1000 - time) > MAX_SKEW_SECONDS ? 'expired' : 'valid';
}
