/**
 * Each account's connected services (proxy.services.list, asked on every gateway context) kept in
 * this process's memory, so an unchanged list is not read again per request (docs/adr/0070).
 *
 * Never older than a change the caller could have seen: PostgreSQL announces every change of a
 * connection (the trigger of migration 20261124190000_proxy_credential_changes, whoever writes the
 * row) and store/credential-changes.ts drops that account here when it arrives. Before answering
 * from memory, `get` waits for the listener's `sync()`: a round trip on the listening connection
 * that began after the request came, by whose end every announcement committed before it has been
 * handled (kit's listenForNotifications). So a list kept here is served only when no change
 * committed before the request touched its account. Callers waiting at once share one round trip,
 * so under load many contexts pay one empty statement instead of one statement each.
 *
 * While the listener is not listening, or a round trip fails, every list is read from the database.
 * A load under way when any change is announced is answered but not kept (the generation moved).
 * Bounded: at most SERVICE_LISTS_MAX accounts, the least recently asked dropped first.
 */
import type { ConnectedService } from '@pag/contracts';

/** At most this many accounts' lists are kept; a list is a few short rows. */
export const SERVICE_LISTS_MAX = 1_000;

export interface ServiceListCacheOptions {
  /** The listener's round trip (NotificationListener.sync): false when changes cannot be heard. */
  sync: () => Promise<boolean>;
  maxEntries?: number;
}

export class ServiceListCache {
  readonly #sync: () => Promise<boolean>;
  readonly #maxEntries: number;
  /** By account, least recently asked first (a Map keeps insertion order). */
  readonly #lists = new Map<string, readonly ConnectedService[]>();
  /** Bumped by every announcement: a load that began before one is not kept. */
  #generation = 0;
  #live = false;

  constructor(options: ServiceListCacheOptions) {
    this.#sync = options.sync;
    this.#maxEntries = options.maxEntries ?? SERVICE_LISTS_MAX;
  }

  /** The account's list: from memory when nothing changed it, else from `load` (and kept). */
  async get(
    accountId: string,
    load: () => Promise<readonly ConnectedService[]>,
  ): Promise<readonly ConnectedService[]> {
    if (!this.#live) return load();
    const generation = this.#generation;
    // Every change committed before this call has been announced and handled once this is true.
    if (!(await this.#sync()) || !this.#live) return load();
    const kept = this.#lists.get(accountId);
    if (kept !== undefined) {
      this.#lists.delete(accountId);
      this.#lists.set(accountId, kept);
      return kept;
    }
    // The generation read before the round trip: an announcement handled since then (of this
    // account or another) keeps this load from being kept, as its snapshot may predate it.
    const list = await load();
    if (this.#live && generation === this.#generation) this.#keep(accountId, list);
    return list;
  }

  /** A connection of the account changed: read its list again next time. */
  invalidate(accountId: string): void {
    this.#generation += 1;
    this.#lists.delete(accountId);
  }

  /** Anything may have changed (a table was truncated, the listener reconnected). */
  clear(): void {
    this.#generation += 1;
    this.#lists.clear();
  }

  /** Whether changes are being heard; when not, every list is read from the database. */
  setLive(live: boolean): void {
    this.clear();
    this.#live = live;
  }

  /** Whether the account's list is kept (the next `get` that finds the round trip true serves it). */
  has(accountId: string): boolean {
    return this.#lists.has(accountId);
  }

  get size(): number {
    return this.#lists.size;
  }

  #keep(accountId: string, list: readonly ConnectedService[]): void {
    this.#lists.set(accountId, list);
    if (this.#lists.size > this.#maxEntries) {
      const oldest = this.#lists.keys().next().value;
      if (oldest !== undefined) this.#lists.delete(oldest);
    }
  }
}
