/**
 * An epoch millisecond as `Date.prototype.toISOString` writes it, with the text up to the second
 * made once per second: every request's audit event carries its time, and a Date and its ISO
 * text per request were a visible share of the proxied call's profile (docs/adr/0074).
 */
let second = Number.NaN;
let secondText = '';

export function isoTime(ms: number): string {
  const whole = Math.floor(ms / 1000);
  if (whole !== second) {
    second = whole;
    // `…T12:34:56.000Z` without its `000Z`.
    secondText = new Date(whole * 1000).toISOString().slice(0, -4);
  }
  const milli = ms - whole * 1000;
  return `${secondText}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
