/**
 * Times read as PostgreSQL writes a UTC `timestamp` (`created_at AT TIME ZONE 'UTC'`), as text or
 * in JSON, e.g. "2026-11-24 08:52:59.2" or "2026-11-24T08:52:59.2": trailing zeros of the fraction
 * dropped. Completed as text to the form toISOString writes: a Date per value (parse, then write
 * again) cost more than the rest of the brain's work on a context of 200 entries.
 */

/** "2026-11-24T08:52:59.2" → "2026-11-24T08:52:59.200Z" (timestamptz(3): at most 3 digits). */
export function isoUtc(utc: string): string {
  const fraction = utc.length > 20 ? utc.slice(20) : '';
  return `${utc.slice(0, 10)}T${utc.slice(11, 19)}.${fraction.padEnd(3, '0')}Z`;
}
