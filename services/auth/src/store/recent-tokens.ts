/**
 * Access tokens this process read in the last moment (TOKEN_READ_CACHE_MS, default one second),
 * with their grants, so that asking about the same token again costs no query. Introspection is
 * the hot path: every resource service asks about each token it has not cached (the gateway, the
 * brain and the proxy each ask about the same token for one agent request), and a resource server
 * that restarts or scales out asks about every live token again (docs/adr/0018).
 *
 * What keeps a revoked token from passing:
 * - every revocation this process makes or hears of forgets the tokens it names before the
 *   revoking request answers: one token by its SHA-256 or every token of an (account, client)
 *   (the RevokedAccess this service reports; TokenRevokedEvent from other replicas and from
 *   operator commands through the revocation relay), a grant by its id, a token written or deleted;
 * - a read that began before a forgetting is not kept (a generation counter), so a row read just
 *   before its deletion cannot come back after it;
 * - nothing is kept past the token's own expiry;
 * - a replica that has not heard of a revocation yet (the event is on its way) can answer for at
 *   most TOKEN_READ_CACHE_MS; the introspection clients refuse answers about a token revoked in the
 *   last few seconds whatever the answer says (packages/kit, IntrospectionClient), so such an answer
 *   cannot bring a revoked token back into their caches.
 */
import { tokenSha256 } from '@pag/kit';
import type { AdapterPayload } from 'oidc-provider';
import type { RevokedAccess } from '../events/auth-events.ts';

const MAX_ENTRIES = 10_000;

export interface RecentToken {
  payload: AdapterPayload;
  grantId: string | null;
  /** The grant as read with the token; undefined when it was gone. */
  grant: AdapterPayload | undefined;
}

interface Entry extends RecentToken {
  accountId: string;
  clientId: string;
  tokenSha256: string;
  until: number;
}

export class RecentTokens {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  #generation = 0;

  /** ttlMs 0 keeps nothing: every read goes to the database. */
  constructor(ttlMs: number, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  /** Changes whenever something is forgotten; a read keeps its result only if it did not change. */
  get generation(): number {
    return this.#generation;
  }

  /** A copy of what was read under this record key, while it is fresh. */
  get(key: string): RecentToken | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    // oidc-provider builds its models from the payloads it is given; the kept ones stay untouched.
    return {
      payload: structuredClone(entry.payload),
      grantId: entry.grantId,
      grant: entry.grant === undefined ? undefined : structuredClone(entry.grant),
    };
  }

  /** Keeps a token read at `generation` (its record key, its raw id for the SHA-256 events use). */
  keep(key: string, id: string, token: RecentToken, generation: number): void {
    if (this.#ttlMs <= 0 || generation !== this.#generation) return;
    const { accountId, clientId, exp } = token.payload;
    if (typeof accountId !== 'string' || typeof clientId !== 'string') return;
    const until = Math.min(this.#now() + this.#ttlMs, typeof exp === 'number' ? exp * 1000 : Infinity);
    if (this.#entries.size >= MAX_ENTRIES) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.delete(key);
    this.#entries.set(key, { ...token, accountId, clientId, tokenSha256: tokenSha256(id), until });
  }

  forgetKey(key: string): void {
    this.#generation += 1;
    this.#entries.delete(key);
  }

  forgetGrant(grantId: string): void {
    this.#forgetWhere((entry) => entry.grantId === grantId);
  }

  /** One revoked token (by SHA-256) or every token of an (account, client). */
  forgetRevoked(revoked: Pick<RevokedAccess, 'accountId' | 'clientId' | 'tokenSha256'>): void {
    this.#forgetWhere((entry) =>
      revoked.tokenSha256 === null
        ? entry.accountId === revoked.accountId && entry.clientId === revoked.clientId
        : entry.tokenSha256 === revoked.tokenSha256,
    );
  }

  #forgetWhere(matches: (entry: Entry) => boolean): void {
    this.#generation += 1;
    for (const [key, entry] of this.#entries) if (matches(entry)) this.#entries.delete(key);
  }
}
