/**
 * A connected service's Retry-After (RFC 9110 §10.2.3), as whole seconds to pass on with our own
 * 429 UPSTREAM_RATE_LIMITED: delay-seconds as given, an HTTP date as the seconds from now until
 * then (rounded up; a date passed is 0). Missing or unreadable: DEFAULT_SECONDS, so a client is
 * still told to wait. Capped at MAX_SECONDS: a provider's "come back tomorrow" (or a clock far
 * off) should not park an agent for longer than an hour without asking again.
 */
export const DEFAULT_RETRY_AFTER_SECONDS = 60;
export const MAX_RETRY_AFTER_SECONDS = 3600;

export function retryAfterSeconds(header: string | string[] | undefined, now = Date.now()): number {
  const value = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  let seconds: number;
  if (/^\d+$/.test(value)) {
    seconds = Number(value);
  } else {
    // Date.parse reads the IMF-fixdate form (and the obsolete ones) RFC 9110 allows; anything
    // else is NaN.
    const at = /^[A-Za-z]{3,9},? /.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(at)) return DEFAULT_RETRY_AFTER_SECONDS;
    seconds = Math.max(0, Math.ceil((at - now) / 1000));
  }
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}
