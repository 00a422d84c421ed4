/**
 * Each (account, agent)'s parts of the context (the persona that applies, the identity, the
 * memory's count and version) kept in this process's memory, so an unchanged context makes no
 * statement of its own (docs/adr/0071). The model is the proxy's list of connected services
 * (docs/adr/0070).
 *
 * Never older than a change the caller could have seen: PostgreSQL announces every change of the
 * tables the parts come from (the triggers of migration 20261124230000_brain_context_changes,
 * whoever writes the row) and store/context-changes.ts drops that account's parts here when it
 * arrives. Before answering from memory, `fresh` waits for the listener's `sync()`: a round trip on
 * the listening connection that began after the request came, by whose end every announcement
 * committed before it has been handled (kit's listenForNotifications). Callers waiting at once
 * share one round trip.
 *
 * While the listener is not listening, or a round trip fails or takes too long, nothing is answered
 * from memory. A read under way when its account's change is announced (or when everything is
 * dropped) is answered but not kept: its snapshot may predate the change. Bounded: at most
 * KEPT_ACCOUNTS accounts and KEPT_AGENTS agents of each, the least recently asked dropped first.
 */
import type { Identity, Persona } from '@pag/contracts';

/** The parts of one agent's context, as read in one snapshot. */
export interface KeptParts {
  persona: Persona | null;
  user: Identity;
  memoryCount: number;
  /** The version of the memory the parts are of (the memory's text is kept by version apart). */
  memoryVersion: string;
}

/** A read of the database under way: keep its parts only if nothing of its account was announced since it began. */
export interface PartsLoad {
  keep(agentId: string | null, parts: KeptParts): void;
  end(): void;
}

/** As many accounts as the memory's text is kept for (context-store.ts). */
export const KEPT_ACCOUNTS = 512;
/** Agents of one account; a persona's soul_content is the largest part. */
export const KEPT_AGENTS = 64;

/** The owner's own context (no agent) under a key no agent id can take. */
const OWNER = '';

export class ContextPartsCache {
  readonly #sync: () => Promise<boolean>;
  /** By account, least recently asked first; in each, by agent, least recently asked first. */
  readonly #accounts = new Map<string, Map<string, KeptParts>>();
  /** The reads under way by account; each is marked stale by an announcement of its account. */
  readonly #loads = new Map<string, Set<{ stale: boolean }>>();
  #live = false;

  constructor(sync: () => Promise<boolean>) {
    this.#sync = sync;
  }

  /**
   * The agent's kept parts, when nothing committed before this call changed them; else undefined
   * (read the database). Makes the round trip only when there is something to answer from.
   */
  async fresh(accountId: string, agentId: string | null): Promise<KeptParts | undefined> {
    if (!this.#live || this.#accounts.get(accountId)?.has(agentId ?? OWNER) !== true) return undefined;
    // Every change committed before this call has been announced and handled once this is true.
    if (!(await this.#sync()) || !this.#live) return undefined;
    const agents = this.#accounts.get(accountId);
    const kept = agents?.get(agentId ?? OWNER);
    if (agents === undefined || kept === undefined) return undefined;
    this.#accounts.delete(accountId);
    this.#accounts.set(accountId, agents);
    agents.delete(agentId ?? OWNER);
    agents.set(agentId ?? OWNER, kept);
    return kept;
  }

  /** Begins a read of the account's parts from the database (call `end` when it is done). */
  loading(accountId: string): PartsLoad {
    // A read that began while changes could go unheard is never kept.
    const load = { stale: !this.#live };
    let loads = this.#loads.get(accountId);
    if (loads === undefined) {
      loads = new Set();
      this.#loads.set(accountId, loads);
    }
    loads.add(load);
    return {
      keep: (agentId, parts) => {
        if (!load.stale && this.#live) this.#keep(accountId, agentId ?? OWNER, parts);
      },
      end: () => {
        const under = this.#loads.get(accountId);
        under?.delete(load);
        if (under?.size === 0) this.#loads.delete(accountId);
      },
    };
  }

  /** A part of the account changed: read its agents' parts again next time. */
  invalidate(accountId: string): void {
    this.#accounts.delete(accountId);
    for (const load of this.#loads.get(accountId) ?? []) load.stale = true;
  }

  /** Anything may have changed (a table was truncated, the listener reconnected). */
  clear(): void {
    this.#accounts.clear();
    for (const loads of this.#loads.values()) for (const load of loads) load.stale = true;
  }

  /** Whether changes are being heard; when not, every context is read from the database. */
  setLive(live: boolean): void {
    this.clear();
    this.#live = live;
  }

  /** How many agents' parts are kept. */
  get size(): number {
    let size = 0;
    for (const agents of this.#accounts.values()) size += agents.size;
    return size;
  }

  #keep(accountId: string, agentKey: string, parts: KeptParts): void {
    const agents = this.#accounts.get(accountId) ?? new Map<string, KeptParts>();
    this.#accounts.delete(accountId);
    this.#accounts.set(accountId, agents);
    agents.delete(agentKey);
    agents.set(agentKey, parts);
    if (agents.size > KEPT_AGENTS) dropOldest(agents);
    if (this.#accounts.size > KEPT_ACCOUNTS) dropOldest(this.#accounts);
  }
}

function dropOldest(map: Map<string, unknown>): void {
  const oldest = map.keys().next().value;
  if (oldest !== undefined) map.delete(oldest);
}
