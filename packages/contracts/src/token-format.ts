/**
 * The shape of every token this gateway issues (docs/adr/0025, docs/token-format.md):
 *
 *   pag_<kind>_<random: 43 characters><tag: 22 characters>
 *
 * `random` is 256 random bits and `tag` an HMAC-SHA-256 keyed by TOKEN_TAG_KEYS over
 * `pag_<kind>_<random>`, truncated to 128 bits, both base64url. The prefix lets secret scanners
 * find a leaked token; the tag lets every service refuse a forged one without a lookup
 * (packages/kit, auth/token-tags.ts). Tokens issued before this shape existed carry no prefix:
 * they are "legacy" and work until the auth service's cut-over date (TOKEN_LEGACY_HEADER).
 */
import type { TokenKind } from './schemas/auth.ts';

/** What a token is for: the agent kinds of TokenKind, and OAuth refresh tokens. */
export type IssuedTokenKind = TokenKind | 'refresh';

/** The two letters after `pag_` for each kind. */
export const TOKEN_KIND_CODES = {
  oauth: 'at',
  refresh: 'rt',
  dashboard: 'dt',
  handshake: 'ht',
  device: 'dv',
} as const satisfies Record<IssuedTokenKind, string>;

export const TOKEN_RANDOM_LENGTH = 43;
export const TOKEN_TAG_LENGTH = 22;

/**
 * Every token we issue, for secret scanners (RE2 syntax: gitleaks, GitHub custom patterns).
 * A token ends where this pattern ends; a scanner that supports it may add `(?![A-Za-z0-9_-])`.
 */
export const TOKEN_PATTERN = `pag_(?:${Object.values(TOKEN_KIND_CODES).join('|')})_[A-Za-z0-9_-]{${TOKEN_RANDOM_LENGTH + TOKEN_TAG_LENGTH}}`;

const WHOLE_TOKEN = new RegExp(`^${TOKEN_PATTERN}$`);

/**
 * Whether a presented token claims our shape (the `pag_` prefix) but does not have it: wrong
 * length, characters or kind. Such a text was mangled on its way (cut, quoted, wrapped), so it is
 * answered MALFORMED_TOKEN, not INVALID_TOKEN. A text without the prefix may be a legacy token.
 */
export function isMalformedToken(token: string): boolean {
  return token.startsWith('pag_') && !WHOLE_TOKEN.test(token);
}

/**
 * Sent by the auth service with every introspection answer: until when tokens without our prefix
 * (issued before it existed) are still looked up, as an ISO date, or `none`. Resource servers
 * refuse such tokens without asking once the moment has passed (or when it says `none`).
 */
export const TOKEN_LEGACY_HEADER = 'pag-legacy-tokens-until';

/**
 * Sent by the auth service with an inactive introspection answer to our resource servers: why the
 * token is not active, `expired` or `revoked` (absent: unknown). The body stays RFC 7662's
 * `{"active": false}`; the header lets a resource server answer TOKEN_EXPIRED or TOKEN_REVOKED
 * with the remedy that fits (docs/adr/0062). Only resource servers may introspect at all.
 */
export const TOKEN_INACTIVE_HEADER = 'pag-token-inactive';
export const INACTIVE_REASONS = ['expired', 'revoked', 'unknown'] as const;
export type InactiveReason = (typeof INACTIVE_REASONS)[number];
