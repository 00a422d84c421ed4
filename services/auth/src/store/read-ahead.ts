/**
 * Fewer round trips on the hot path (introspection, refresh), where oidc-provider reads a token,
 * then its grant, then the token's client, one query each.
 *
 * - Registered clients never change (registration management is off, nothing updates them), so
 *   a found client is kept for a minute; this process forgets it at once when it writes or deletes it.
 * - A token's grant is read in the same query as the token and kept for one second, for one use:
 *   the grant lookup of the same request. A grant is never revoked without its tokens (oidc-provider
 *   deletes both together, and so does the adapter), so a grant read a moment early cannot make a
 *   revoked token pass: the token itself is always read from the database. Writing or deleting a
 *   grant in this process drops what was read ahead.
 * - An access token is looked up together with a refresh token of the same value, because
 *   oidc-provider asks for the refresh token next whenever the access token is not found
 *   (introspection, revocation). That no refresh token has this value is kept for 100 ms, for one
 *   use, so a wrong token costs one query like a right one. Absence cannot turn into presence in
 *   that time (token values are random and made by this server; a write forgets it anyway).
 */
import type { AdapterPayload } from 'oidc-provider';

const CLIENT_TTL_MS = 60_000;
const GRANT_TTL_MS = 1_000;
const ABSENT_TTL_MS = 100;
const MAX_ENTRIES = 10_000;

interface Entry {
  /** undefined: known not to exist (or expired). */
  payload: AdapterPayload | undefined;
  until: number;
}

function put(map: Map<string, Entry>, key: string, entry: Entry): void {
  if (map.size >= MAX_ENTRIES) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, entry);
}

export class ReadAhead {
  readonly #clients = new Map<string, Entry>();
  readonly #grants = new Map<string, Entry>();
  readonly #refreshAbsent = new Map<string, Entry>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  client(id: string): Entry | undefined {
    const entry = this.#clients.get(id);
    if (entry === undefined || entry.until > this.#now()) return entry;
    this.#clients.delete(id);
    return undefined;
  }

  keepClient(id: string, payload: AdapterPayload | undefined): void {
    // Only clients that exist are kept: one registered a moment later must be found.
    if (payload !== undefined) put(this.#clients, id, { payload, until: this.#now() + CLIENT_TTL_MS });
  }

  forgetClient(id: string): void {
    this.#clients.delete(id);
  }

  /** The grant read with a token, once; undefined when there is none to use. */
  takeGrant(grantId: string): Entry | undefined {
    const entry = this.#grants.get(grantId);
    this.#grants.delete(grantId);
    return entry !== undefined && entry.until > this.#now() ? entry : undefined;
  }

  keepGrant(grantId: string, payload: AdapterPayload | undefined): void {
    put(this.#grants, grantId, { payload, until: this.#now() + GRANT_TTL_MS });
  }

  forgetGrant(grantId: string): void {
    this.#grants.delete(grantId);
  }

  /** Whether no refresh token has this (record) key, as just read with an access token; once. */
  takeRefreshAbsent(key: string): boolean {
    const entry = this.#refreshAbsent.get(key);
    this.#refreshAbsent.delete(key);
    return entry !== undefined && entry.until > this.#now();
  }

  keepRefreshAbsent(key: string): void {
    put(this.#refreshAbsent, key, { payload: undefined, until: this.#now() + ABSENT_TTL_MS });
  }

  forgetRefreshAbsent(key: string): void {
    this.#refreshAbsent.delete(key);
  }
}
