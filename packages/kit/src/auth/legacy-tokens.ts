/**
 * Tokens without our prefix were issued before it existed (docs/adr/0025). They keep working
 * until the last of them has expired: the auth service knows that moment (recorded by the
 * migration that introduced the prefix) and tells it with every introspection answer in
 * TOKEN_LEGACY_HEADER; resource servers refuse legacy tokens without asking once it has passed.
 */

/** The header's value: the moment as an ISO date, or `none` when no legacy token is accepted. */
export function legacyHeaderValue(until: Date | null): string {
  return until === null ? 'none' : until.toISOString();
}

/**
 * Until when (epoch ms) legacy tokens are accepted according to the header: null for none,
 * undefined when the header is missing or unreadable (an auth service that does not say: ask it).
 */
export function readLegacyHeader(value: string | null): number | null | undefined {
  if (value === null) return undefined;
  if (value === 'none') return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}
