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
 *
 * An owner's connector gets a keep-alive agent of its own (its lookup answers checked public
 * addresses only). The agent outlives the maps: a rebuild of the account (any change of its rows,
 * every call while the listener is down) takes the agent it already has for that connector and
 * API origin, so connections stay reused; one that is gone from the account's rows, or whose
 * account's map was evicted, is retired: its idle sockets closed, the others when their call ends.
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
  /** Each account's agents of its own connectors, by connector and API origin. */
  readonly #agents = new Map<string, Map<string, HttpAgent>>();
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
    const loading = this.#source.rowsOf(accountId).then((rows) => this.#merge(accountId, rows));
    if (this.#live) this.#loading.set(accountId, loading);
    let map: ReadonlyMap<string, ConnectorDefinition>;
    try {
      map = await loading;
    } finally {
      if (this.#loading.get(accountId) === loading) this.#loading.delete(accountId);
    }
    if (generation === this.#generation) {
      // Only a current read says which agents the account no longer needs: a slower, older one
      // must not retire what a newer one built.
      this.#retireAgents(accountId, map);
      if (this.#live) {
        this.#accounts.set(accountId, map);
        for (const oldest of this.#accounts.keys()) {
          if (this.#accounts.size <= MAX_ACCOUNTS) break;
          this.#accounts.delete(oldest);
          this.#retireAgents(oldest, this.#base);
        }
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
  #publicOnly(accountId: string, connector: ConnectorDefinition): ConnectorDefinition['publicOnly'] {
    const origin = new URL(connector.baseUrl).origin;
    const key = agentKey(connector.name, origin);
    let agents = this.#agents.get(accountId);
    if (agents === undefined) {
      agents = new Map();
      this.#agents.set(accountId, agents);
    }
    let agent = agents.get(key);
    if (agent === undefined) {
      const options = { keepAlive: true, lookup: checkedLookup(this.#allowLoopback) };
      agent = origin.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
      agents.set(key, agent);
    }
    return { allowLoopback: this.#allowLoopback, agent };
  }

  /** Retires the account's agents that `map` does not use. */
  #retireAgents(accountId: string, map: ReadonlyMap<string, ConnectorDefinition>): void {
    const agents = this.#agents.get(accountId);
    if (agents === undefined) return;
    const used = new Set<HttpAgent>();
    for (const connector of map.values()) {
      if (connector.owned && connector.publicOnly !== null) used.add(connector.publicOnly.agent);
    }
    for (const [key, agent] of agents) {
      if (used.has(agent)) continue;
      agents.delete(key);
      retire(agent);
    }
    if (agents.size === 0) this.#agents.delete(accountId);
  }

  #merge(accountId: string, rows: readonly OwnerConnectorRow[]): ReadonlyMap<string, ConnectorDefinition> {
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
          publicOnly: this.#publicOnly(accountId, connector),
        });
      }
    }
    return map;
  }
}

function agentKey(service: string, origin: string): string {
  return `${service} ${origin}`;
}

/**
 * Closes an agent's idle sockets now and each busy one when its call ends. Not `destroy()`: that
 * also ends the sockets of calls still running. Node's Agent puts a socket freed by a finished
 * call back in its pool only while `keepAlive` is true, else destroys it (lib/_http_agent.js, its
 * 'free' listener), so turning it off makes the busy sockets close as they come back.
 */
function retire(agent: HttpAgent): void {
  // `keepAlive` is the Agent's own field (set from its options), left out of @types/node.
  (agent as HttpAgent & { keepAlive: boolean }).keepAlive = false;
  for (const sockets of Object.values(agent.freeSockets)) {
    for (const socket of sockets ?? []) socket.destroy();
  }
}
