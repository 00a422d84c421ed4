/**
 * The remedy each token refusal names, chosen by the token's kind (docs/adr/0062): an expired
 * OAuth token is refreshed, an expired device token replaced by signing a new assertion, a
 * handshake or dashboard token replaced by a new handshake or by the owner; a scope that a
 * handshake cannot request is never answered with "start a handshake". The codes stay those of the
 * catalogue (errors.ts); only the hint is chosen here, through AppError's `hint` option. An unknown
 * kind (a token without our prefix) keeps the catalogue's hint.
 *
 * The kind of an accepted token is what introspection says (token_kind); of a refused one, what
 * its prefix says (token-format.ts): that is the caller's own token, so naming it leaks nothing.
 */
import { API_PREFIX } from './api.ts';
import { HANDSHAKE_SCOPES } from './scopes/scope-catalogue.ts';
import { scopeGrants } from './scopes/scope-matcher.ts';
import type { IssuedTokenKind } from './token-format.ts';
import { TOKEN_KIND_CODES } from './token-format.ts';

const TOKEN_ENDPOINT = '/oauth/token';
const HANDSHAKE = `POST ${API_PREFIX}/handshakes`;
const DASHBOARD_TOKENS = '/dashboard/tokens';

const KIND_BY_PREFIX = new Map<string, IssuedTokenKind>(
  Object.entries(TOKEN_KIND_CODES).map(([kind, code]) => [`pag_${code}_`, kind as IssuedTokenKind]),
);

/** What the token's prefix says it is (its text alone, no tag check); undefined without our prefix. */
export function tokenKindOf(token: string): IssuedTokenKind | undefined {
  return KIND_BY_PREFIX.get(token.slice(0, 7));
}

/** How to get a new token of the same kind. */
const NEW_TOKEN: Record<IssuedTokenKind, string> = {
  oauth:
    `Use your refresh token: POST ${TOKEN_ENDPOINT} with grant_type=refresh_token and refresh_token=<your refresh token> ` +
    '(and your client authentication); without one, run the OAuth authorization again.',
  device:
    `Sign a new Ed25519 assertion (RFC 7523: iss and sub your device id, aud ${TOKEN_ENDPOINT}, a fresh jti, exp at most 5 minutes ahead) ` +
    `and exchange it: POST ${TOKEN_ENDPOINT} with grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer, assertion=<JWT> and client_id=<device id>. ` +
    'Device tokens have no refresh token.',
  handshake: `Start a new handshake (${HANDSHAKE}; the owner approves it again), or ask the owner for a token on ${DASHBOARD_TOKENS}.`,
  dashboard: `Ask the owner for a new token on ${DASHBOARD_TOKENS}, or start a handshake: ${HANDSHAKE}.`,
  refresh: `A refresh token is not a bearer token: exchange it at POST ${TOKEN_ENDPOINT} (grant_type=refresh_token) for an access token.`,
};

/** After a revocation: the owner decided, so the way back goes through the owner. */
const AFTER_REVOCATION: Record<IssuedTokenKind, string> = {
  oauth:
    'Do not retry with it or its refresh token; only if the owner wants you back, run the OAuth authorization again.',
  device: `Do not retry with it; if the device itself was revoked, new assertions are refused too: ask the owner.`,
  handshake: `Do not retry with it; ask the owner whether to start a new handshake (${HANDSHAKE}).`,
  dashboard: `Do not retry with it; ask the owner for a new token on ${DASHBOARD_TOKENS}.`,
  refresh: NEW_TOKEN.refresh,
};

/** The hint of TOKEN_EXPIRED for a token of this kind; undefined: the catalogue's. */
export function expiredTokenHint(kind: IssuedTokenKind | undefined): string | undefined {
  return kind === undefined ? undefined : `The token has expired. ${NEW_TOKEN[kind]}`;
}

/** The hint of TOKEN_REVOKED for a token of this kind; undefined: the catalogue's. */
export function revokedTokenHint(kind: IssuedTokenKind | undefined): string | undefined {
  return kind === undefined ? undefined : `The owner revoked this token. ${AFTER_REVOCATION[kind]}`;
}

/** The hint of INVALID_TOKEN (unknown) for a token of this kind; undefined: the catalogue's. */
export function unknownTokenHint(kind: IssuedTokenKind | undefined): string | undefined {
  if (kind === 'refresh') return NEW_TOKEN.refresh;
  return kind === undefined
    ? undefined
    : `This token is not known here: check that you send it exactly as issued. ${NEW_TOKEN[kind]}`;
}

/** Whether a handshake can bring a token that grants `scope` (the scopes it may request, and what they grant). */
export function handshakeCanGrant(scope: string): boolean {
  return HANDSHAKE_SCOPES.some((requestable) => scopeGrants([requestable], scope));
}

/** The hint of INSUFFICIENT_SCOPE for `scope` and a token of this kind (undefined: not known). */
export function insufficientScopeHint(scope: string, kind: IssuedTokenKind | undefined): string {
  const requestable = HANDSHAKE_SCOPES.filter((candidate) => scopeGrants([candidate], scope));
  const viaOAuth = `or consent to it through OAuth (authorize with scope=${scope})`;
  if (requestable.length === 0) {
    const head =
      `A handshake cannot grant ${scope} (a handshake may request only ${HANDSHAKE_SCOPES.join(', ')}): ` +
      `the owner must issue a token with it on ${DASHBOARD_TOKENS}`;
    return kind === 'oauth' ? `${head}, ${viaOAuth}.` : `${head}.`;
  }
  const handshake = `a new handshake (${HANDSHAKE}) requesting ${requestable.join(' or ')}`;
  switch (kind) {
    case 'oauth':
      return `Run the OAuth authorization again asking for scope=${scope}; the owner consents to it.`;
    case 'device':
      return `Ask the owner to grant your device ${scope}, or get a token through ${handshake}.`;
    default:
      return `Ask the owner for a token that grants ${scope}: through ${handshake}, or a token made on ${DASHBOARD_TOKENS}.`;
  }
}
