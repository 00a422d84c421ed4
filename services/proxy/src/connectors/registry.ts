/**
 * The connectors an account sees (docs/adr/0068): the catalogue and the deployment's own
 * (resolveConnectors, built at start) with this owner's own OAuth clients (they beat the
 * deployment's) and this owner's own generic connectors. Owner B never sees owner A's client or
 * connector: each account's map is built from its own rows only.
 *
 * Asked on every call, so kept in memory per account and dropped when the account's rows change:
 * `owner_connectors` announces every change on `proxy_credentials` as connections and vault
 * tokens do (migration 20261124210000_owner_connectors), and store/credential-changes.ts calls
 * `invalidate` for it on every replica. While that listener is down nothing is kept (setLive), as
 * in calls/credential-cache.ts. An account without rows of its own shares the base map.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { checkedLookup } from '@pag/kit';
import type { OwnerConnectorRow } from '../store/owner-connector-store.ts';
import type { ConnectorDefinition } from './catalogue.ts';
import { toConnector } from './catalogue.ts';

/** At most this many accounts' maps are kept; the oldest goes first. */
const MAX_ACCOUNTS = 10_000;

export interface OwnerConnectorSource {
  rowsOf(accountId: string): Promise<OwnerConnectorRow[]>;
}

export class ConnectorRegistry {
  readonly #base: ReadonlyMap<string, ConnectorDefinition>;
  readonly #source: OwnerConnectorSource;
  readonly #accounts = new Map<string, ReadonlyMap<string, ConnectorDefinition>>();
  readonly #loading = new Map<string, Promise<ReadonlyMap<string, ConnectorDefinition>>>();
  #generation = 0;
  #live = false;

  readonly #allowLoopback: boolean;

  constructor(
    base: ReadonlyMap<string, ConnectorDefinition>,
    source: OwnerConnectorSource,
    options: { allowLoopback?: boolean } = {},
  ) {
    this.#base = base;
    this.#source = source;
    this.#allowLoopback = options.allowLoopback ?? false;
  }

  /** The catalogue and the deployment's connectors, as every account sees them without rows of its own. */
  get base(): ReadonlyMap<string, ConnectorDefinition> {
    return this.#base;
  }

  async forAccount(accountId: string): Promise<ReadonlyMap<string, ConnectorDefinition>> {
    const kept = this.#live ? this.#accounts.get(accountId) : undefined;
    if (kept !== undefined) return kept;
    // A burst of first calls for one account waits for one read.
    const under = this.#live ? this.#loading.get(accountId) : undefined;
    if (under !== undefined) return under;
    const generation = this.#generation;
    const loading = this.#source.rowsOf(accountId).then((rows) => this.#merge(rows));
    if (this.#live) this.#loading.set(accountId, loading);
    let map: ReadonlyMap<string, ConnectorDefinition>;
    try {
      map = await loading;
    } finally {
      if (this.#loading.get(accountId) === loading) this.#loading.delete(accountId);
    }
    if (this.#live && generation === this.#generation) {
      this.#accounts.set(accountId, map);
      for (const oldest of this.#accounts.keys()) {
        if (this.#accounts.size <= MAX_ACCOUNTS) break;
        this.#accounts.delete(oldest);
      }
    }
    return map;
  }

  /** A row of the account changed (any service: a connection's change costs one rebuild). */
  invalidate(accountId: string, _service: string): void {
    this.#generation += 1;
    this.#accounts.delete(accountId);
    this.#loading.delete(accountId);
  }

  clear(): void {
    this.#generation += 1;
    this.#accounts.clear();
    this.#loading.clear();
  }

  setLive(live: boolean): void {
    this.clear();
    this.#live = live;
  }

  /**
   * The API's agent of an owner's connector: its lookup resolves once and answers only checked
   * public addresses, so the socket connects to what was checked (no DNS rebinding in between).
   */
  #publicOnly(connector: ConnectorDefinition): ConnectorDefinition['publicOnly'] {
    const options = { keepAlive: true, lookup: checkedLookup(this.#allowLoopback) };
    const agent =
      new URL(connector.baseUrl).protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    return { allowLoopback: this.#allowLoopback, agent };
  }

  #merge(rows: readonly OwnerConnectorRow[]): ReadonlyMap<string, ConnectorDefinition> {
    if (rows.length === 0) return this.#base;
    const map = new Map(this.#base);
    for (const row of rows) {
      if (row.definition === null) {
        const known = this.#base.get(row.service);
        if (known === undefined || known.oauth === null) continue;
        map.set(row.service, { ...known, client: row.client, clientSource: 'owner' });
      } else if (!this.#base.has(row.service)) {
        const connector = toConnector(row.definition, row.client);
        map.set(row.service, {
          ...connector,
          clientSource: 'owner',
          owned: true,
          publicOnly: this.#publicOnly(connector),
        });
      }
    }
    return map;
  }
}
