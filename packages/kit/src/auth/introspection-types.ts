/**
 * RFC 7662 introspection: the wire answer (snake_case, as the auth service sends it) kept apart
 * from what callers see (camelCase, parsed once).
 */
import type { InactiveReason } from '@pag/contracts';
import type { Bus } from '../bus/types.ts';
import type { Logger } from '../log/logger.ts';

/** What introspection tells about an active token. */
export interface ActiveToken {
  /** Scopes as issued (the `scope` claim split on spaces). */
  scopes: string[];
  clientId: string;
  /** The owner account the token acts for (`account_id`, else `sub`); undefined for client-only tokens. */
  accountId: string | undefined;
  subject: string | undefined;
  /** Audiences (`aud`, always as a list). */
  audience: string[];
  /** Expiry, epoch seconds; undefined: valid until revoked. */
  expiresAt: number | undefined;
  issuedAt: number | undefined;
  tokenType: string | undefined;
  /** Every other claim of the answer (e.g. `plan`), untouched. */
  extra: Readonly<Record<string, unknown>>;
}

/** The active token, or why it is not active (expired, revoked, or unknown: nothing more is told). */
export type TokenCheck = { active: ActiveToken } | { active: null; reason: InactiveReason };

export interface IntrospectionClientOptions {
  /** Base URL of the auth service; the endpoint is `${authUrl}/oauth/introspect`. */
  authUrl: string;
  /** This resource server's own confidential client (client_secret_basic). */
  clientId: string;
  clientSecret: string;
  /**
   * TOKEN_TAG_KEYS: the keys our tokens' tags verify under (token-tags.ts); a token whose tag
   * verifies under none of them is refused without a request.
   */
  tokenTagKeys: readonly string[];
  /** How long an active answer is reused; never past the token's expiry. Default 5000. */
  cacheMs?: number;
  /** How long an inactive answer is reused, so a flood of wrong tokens stays local. Default 1000. */
  negativeCacheMs?: number;
  /** Cached answers kept at most (least recently used leave first). Default 10000. */
  maxEntries?: number;
  /** An auth service slower than this is UPSTREAM_TIMEOUT. Default 3000. */
  timeoutMs?: number;
  /** Revocation events arrive here (EventSubjects.tokenRevoked) and evict at once. */
  bus?: Bus;
  logger?: Logger;
  /** The clock, epoch ms (tests). */
  now?: () => number;
}

export interface IntrospectOptions {
  /** Travels as X-Request-Id so the auth service's logs correlate. */
  requestId?: string;
}
