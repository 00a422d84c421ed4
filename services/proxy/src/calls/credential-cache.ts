/**
 * The decrypted credentials of recent calls, in this process's memory only, per (account, service),
 * so a burst of calls does not read the connection and the vault token and decrypt the value on
 * every one (docs/adr/0067). Bounded (the oldest entry goes first) and short-lived: an entry lives
 * CREDENTIAL_CACHE_MS at most, and never past its token's own expiry. Only usable credentials are
 * kept; a refusal (not connected, expired) is asked again each time.
 *
 * Every write to a connection or vault token must end in `invalidate(accountId, service)` on every
 * replica: the proxy's listener (store/credential-changes.ts) calls it for each change PostgreSQL
 * reports, whoever wrote the row. While that listener is not listening, nothing is served from here
 * (`setLive(false)`): a change it could have missed must not be answered with an old credential.
 * A load under way when an invalidation arrives is used for its own call but not kept.
 *
 * Values are never logged: the entries hold them and nothing here prints an entry.
 */
import type { Credential } from './connection.ts';

/** How long a credential is used from memory at most (a change is seen at once through `invalidate`). */
export const CREDENTIAL_CACHE_MS = 5_000;
/** At most this many (account, service) entries; the oldest is dropped first. */
export const CREDENTIAL_CACHE_MAX = 1_000;

export interface CredentialCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  credential: Credential;
  /** Epoch milliseconds after which the entry is not used. */
  until: number;
}

export class CredentialCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  /** One load per key at a time: a burst of calls waits for the first one's. */
  readonly #loading = new Map<string, Promise<Credential>>();
  /** Bumped by every invalidation: a load that started before one is not kept. */
  #generation = 0;
  #live = false;

  constructor(options: CredentialCacheOptions = {}) {
    this.#ttlMs = options.ttlMs ?? CREDENTIAL_CACHE_MS;
    this.#maxEntries = options.maxEntries ?? CREDENTIAL_CACHE_MAX;
    this.#now = options.now ?? Date.now;
  }

  /** The credential from memory while fresh, else from `load` (kept when nothing changed meanwhile). */
  async get(accountId: string, service: string, load: () => Promise<Credential>): Promise<Credential> {
    if (!this.#live) return load();
    const key = keyOf(accountId, service);
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.until > this.#now()) return entry.credential;
    if (entry !== undefined) this.#entries.delete(key);
    const under = this.#loading.get(key);
    if (under !== undefined) return under;
    const generation = this.#generation;
    const loading = load();
    this.#loading.set(key, loading);
    try {
      const credential = await loading;
      if (this.#live && generation === this.#generation) this.#keep(key, credential);
      return credential;
    } finally {
      if (this.#loading.get(key) === loading) this.#loading.delete(key);
    }
  }

  /** The account's connection to `service` or one of its tokens changed: read it again next time. */
  invalidate(accountId: string, service: string): void {
    this.#generation += 1;
    const key = keyOf(accountId, service);
    this.#entries.delete(key);
    this.#loading.delete(key);
  }

  /** Anything may have changed (the listener reconnected, a table was truncated). */
  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
    this.#loading.clear();
  }

  /** Whether changes are being heard; when not, everything is read from the database. */
  setLive(live: boolean): void {
    this.clear();
    this.#live = live;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether a credential of the account's `service` is kept (fresh or not yet dropped). */
  holds(accountId: string, service: string): boolean {
    return this.#entries.has(keyOf(accountId, service));
  }

  #keep(key: string, credential: Credential): void {
    const expiry = credential.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
    const until = Math.min(this.#now() + this.#ttlMs, expiry);
    if (until <= this.#now()) return;
    this.#entries.delete(key);
    this.#entries.set(key, { credential, until });
    // Map keeps insertion order: the first key is the oldest entry.
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(oldest);
    }
  }
}

/** A service name never holds a newline, and an account id is a UUID. */
function keyOf(accountId: string, service: string): string {
  return `${accountId}\n${service}`;
}
