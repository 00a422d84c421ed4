/**
 * What text PostgreSQL can store: no U+0000 (text and jsonb refuse it: 22021, 22P05) and no
 * unpaired UTF-16 surrogate (node-postgres would silently send U+FFFD for it in a text column, and
 * jsonb refuses its `\ud800` escape). JSON and URL decoding both let either through, so every
 * boundary that takes text from a client checks it with this one rule.
 */

/** Why `text` cannot be stored as sent; null when it can. */
export function unstorableReason(text: string): string | null {
  if (text.includes('\u0000')) return 'contains a NUL character (U+0000)';
  if (!text.isWellFormed()) return 'contains an unpaired UTF-16 surrogate (not valid Unicode)';
  return null;
}

export function isStorableText(text: string): boolean {
  return unstorableReason(text) === null;
}

/**
 * The first string in `value` (itself, an array item, an object key or member, at any depth) that
 * cannot be stored, with where it is (`client_name`, `redirect_uris.0`); null when all can.
 */
export function findUnstorableText(value: unknown, path = ''): { path: string; reason: string } | null {
  if (typeof value === 'string') {
    const reason = unstorableReason(value);
    return reason === null ? null : { path, reason };
  }
  // Bytes (Buffer, Uint8Array) are not text.
  if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return null;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((item, index) => [String(index), item])
    : Object.entries(value);
  for (const [key, item] of entries) {
    const where = path === '' ? key : `${path}.${key}`;
    const keyReason = unstorableReason(key);
    if (keyReason !== null) return { path: where, reason: `has a name that ${keyReason}` };
    const found = findUnstorableText(item, where);
    if (found !== null) return found;
  }
  return null;
}
