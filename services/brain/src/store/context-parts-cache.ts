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
 * KEPT_PARTS agents in all, KEPT_AGENTS of one account and KEPT_ACCOUNTS accounts, the least
 * recently asked dropped first; agents of one account with the same persona share its object
 * (parts kept together were read with no change of the account announced in between).
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
/** Agents of one account. */
export const KEPT_AGENTS = 64;
/**
 * Agents in all. A persona's soul_content (at most 32 KiB) is the largest part, so this bounds the
 * cache near 64 MiB of text in the worst case (every agent its own largest persona); a personal
 * gateway has a handful of accounts and agents.
 */
export const KEPT_PARTS = 2_048;

/** The owner's own context (no agent) under a key no agent id can take. */
const OWNER = '';

export class ContextPartsCache {
  readonly #sync: () => Promise<boolean>;
  /** By account, least recently asked first; in each, by agent, least recently asked first. */
  readonly #accounts = new Map<string, Map<string, KeptParts>>();
  /** The reads under way by account; each is marked stale by an announcement of its account. */
  readonly #loads = new Map<string, Set<{ stale: boolean }>>();
  /** How many agents' parts are kept, in all accounts. */
  #size = 0;
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
    this.#dropAccount(accountId);
    for (const load of this.#loads.get(accountId) ?? []) load.stale = true;
  }

  /** Anything may have changed (a table was truncated, the listener reconnected). */
  clear(): void {
    this.#accounts.clear();
    this.#size = 0;
    for (const loads of this.#loads.values()) for (const load of loads) load.stale = true;
  }

  /** Whether changes are being heard; when not, every context is read from the database. */
  setLive(live: boolean): void {
    this.clear();
    this.#live = live;
  }

  /** How many agents' parts are kept. */
  get size(): number {
    return this.#size;
  }

  #keep(accountId: string, agentKey: string, parts: KeptParts): void {
    const agents = this.#accounts.get(accountId) ?? new Map<string, KeptParts>();
    this.#accounts.delete(accountId);
    this.#accounts.set(accountId, agents);
    if (agents.delete(agentKey)) this.#size -= 1;
    agents.set(agentKey, { ...parts, persona: this.#shared(agents, parts.persona) });
    this.#size += 1;
    if (agents.size > KEPT_AGENTS) this.#dropOldestAgent(agents);
    if (this.#accounts.size > KEPT_ACCOUNTS) {
      const [oldest] = this.#accounts.keys();
      if (oldest !== undefined) this.#dropAccount(oldest);
    }
    // The least recently asked account gives up its least recently asked agent.
    while (this.#size > KEPT_PARTS) {
      const [oldest] = this.#accounts;
      if (oldest === undefined) break;
      const [oldestAccount, oldestAgents] = oldest;
      this.#dropOldestAgent(oldestAgents);
      if (oldestAgents.size === 0) this.#accounts.delete(oldestAccount);
    }
  }

  #dropAccount(accountId: string): void {
    this.#size -= this.#accounts.get(accountId)?.size ?? 0;
    this.#accounts.delete(accountId);
  }

  /** Another agent's object of the same persona, if one is kept (the same text, read once). */
  #shared(agents: Map<string, KeptParts>, persona: Persona | null): Persona | null {
    if (persona === null) return null;
    for (const other of agents.values()) if (other.persona?.id === persona.id) return other.persona;
    return persona;
  }

  #dropOldestAgent(agents: Map<string, KeptParts>): void {
    const [oldest] = agents.keys();
    if (oldest !== undefined && agents.delete(oldest)) this.#size -= 1;
  }
}
