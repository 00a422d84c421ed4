/**
 * The brain's parts of an agent's context in one statement (one round trip, one plan, one row):
 * the persona applying to the calling agent, the owner's identity profile, the newest entries of
 * the memory and the count of all of them (brain.memory_counts, kept by triggers), in one row of
 * two texts: PostgreSQL's JSON of the persona, identity and count, parsed here, and the memory as
 * one JSON array text, handed on unread (BrainContext.memoryJson; the gateway splices it into its
 * answer). That array is the entries' own JSON texts joined: each row keeps its entry as the
 * context carries it (the generated column entry_json, times in toISOString's form), so no entry
 * is built, parsed or written again on a read: building them per read (json_agg) took PostgreSQL
 * about twice the time of the scan, and the brain, the bus and the gateway each parsed and wrote
 * the 200 entries again. Four statements through Prisma, each with its own request pipeline and
 * row mapping, cost the brain's share of GET /api/v1/gateway/context most of its time before; it
 * runs as a named statement on the client's node-postgres pool (kit's sqlPoolOf), not through
 * Prisma, whose request pipeline alone cost about 0.3 ms of CPU per statement. The memory is
 * bounded twice, by entries and by bytes of content: a window sum of octet_length (the stored
 * size, read without detoasting the text) over the newest rows, kept while it stays within the
 * budget, so only the entries carried are ever read whole. docs/adr/0043.
 *
 * The memory of an account is kept here with its version (sum(changes) of brain.memory_counts,
 * moved by the triggers of every insert, delete and update: migration
 * 20261124190000_brain_memory_version), and the statement reads the entries again only when the
 * version it sees is not the one kept: an unchanged memory of 100,000 entries then costs what an
 * empty one does (docs/adr/0060). The version is read in the statement's own snapshot, so the
 * memory answered is always the one of that snapshot, whoever changed it (the brain, another
 * replica, `pag memory`, SQL); nothing has to tell the brain.
 *
 * The parts themselves (persona, identity, count and version) are kept per (account, agent) in a
 * ContextPartsCache, answered only after the listener's round trip (docs/adr/0071): a context with
 * nothing changed, its memory kept at the parts' version, makes no statement at all.
 *
 * The reads are those of PersonaStore.applying (the agent's own persona, else the owner's
 * default), IdentityStore.find and MemoryStore.newest/count, in one statement.
 */
import type { Identity, Persona } from '@pag/contracts';
import { sqlPoolOf } from '@pag/kit';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ContextPartsCache, KeptParts } from './context-parts-cache.ts';

export interface ContextParts {
  persona: Persona | null;
  /** Null while the account has no identity profile yet (the caller seeds it). */
  user: Identity | null;
  /**
   * The newest entries as one JSON array text (MemoryEntry[]), unread: see the header; null when
   * the memory is the version the caller said it has.
   */
  memoryJson: string | null;
  /** The version of the memory the parts are of. */
  memoryVersion: string;
  memoryCount: number;
}

/** A memory as the context carries it, with the version it was read at and the bounds it was read with. */
interface KeptMemory {
  version: string;
  entries: number;
  bytes: number;
  json: string;
}

/**
 * How many accounts' memories are kept (the ones read most recently). A memory is at most
 * CONTEXT_MEMORY_MAX_BYTES of content (64 KiB) plus its JSON, so this bounds the cache near 40 MiB
 * in the worst case; a personal gateway has a handful of accounts.
 */
const KEPT_ACCOUNTS = 512;

export class ContextStore {
  readonly #sql: ReturnType<typeof sqlPoolOf>;
  /** By account, oldest use first (a Map keeps insertion order). */
  readonly #memories = new Map<string, KeptMemory>();

  readonly #parts: ContextPartsCache | undefined;

  /** Without `parts`, every context is read from the database (the memory's text is still kept). */
  constructor(prisma: PrismaClient, parts?: ContextPartsCache) {
    // On node-postgres directly: the brain's hottest read (see the header).
    this.#sql = sqlPoolOf(prisma);
    this.#parts = parts;
  }

  /**
   * The parts for `callerAgentId` of the account, with the newest entries, newest first: at most
   * `limit.entries` of them and `limit.bytes` of content (UTF-8) in all, and always the newest.
   * `callerHas`: the version of the memory the caller already has (read with the same limits), or
   * null; when the memory is still that version its text is not sent again (memoryJson null).
   */
  async read(
    accountId: string,
    callerAgentId: string | null,
    limit: { entries: number; bytes: number },
    callerHas: string | null = null,
  ): Promise<ContextParts> {
    const fresh = await this.#parts?.fresh(accountId, callerAgentId);
    const answer = fresh === undefined ? undefined : this.#fromMemory(accountId, fresh, limit, callerHas);
    if (answer !== undefined) return answer;
    const load = this.#parts?.loading(accountId);
    try {
      const parts = await this.#read(accountId, callerAgentId, limit, callerHas);
      // A fresh account's identity is seeded by the caller: its parts are kept from the next read.
      if (parts.user !== null) {
        const { persona, user, memoryCount, memoryVersion } = parts;
        load?.keep(callerAgentId, { persona, user, memoryCount, memoryVersion });
      }
      return parts;
    } finally {
      load?.end();
    }
  }

  /** The context from the kept parts, when the memory's text at their version is kept too. */
  #fromMemory(
    accountId: string,
    parts: KeptParts,
    limit: { entries: number; bytes: number },
    callerHas: string | null,
  ): ContextParts | undefined {
    if (parts.memoryVersion === callerHas) return { ...parts, memoryJson: null };
    const kept = this.#memories.get(accountId);
    if (kept === undefined || kept.version !== parts.memoryVersion) return undefined;
    if (kept.entries !== limit.entries || kept.bytes !== limit.bytes) return undefined;
    this.#keep(accountId, kept);
    return { ...parts, memoryJson: kept.json };
  }

  /** The statement: the parts of its snapshot, the memory's text only when not kept at its version. */
  async #read(
    accountId: string,
    callerAgentId: string | null,
    limit: { entries: number; bytes: number },
    callerHas: string | null,
  ): Promise<ContextParts> {
    const kept = this.#memories.get(accountId);
    const usable = kept !== undefined && kept.entries === limit.entries && kept.bytes === limit.bytes;
    // The statement skips the entries when the version is this one: the kept memory's, else the
    // caller's (a brain that keeps nothing, e.g. after a restart, still spares the caller's read).
    const skipAt = usable ? kept.version : callerHas;
    const { rows } = await this.#sql.query<{ parts: string; version: string; memory: string | null }>({
      name: 'brain_context_read',
      text: CONTEXT_SQL,
      values: [accountId, callerAgentId, limit.entries, limit.bytes, skipAt],
    });
    const [row] = rows;
    if (row === undefined) throw new Error('the context statement returned no row');
    const parts = JSON.parse(row.parts) as Omit<ContextParts, 'memoryJson' | 'memoryVersion'>;
    const memoryVersion = row.version;
    if (row.memory !== null) this.#keep(accountId, { version: memoryVersion, ...limit, json: row.memory });
    // Not read: the version is skipAt, the kept one's or else the caller's.
    else if (usable) this.#keep(accountId, kept);
    if (memoryVersion === callerHas) return { ...parts, memoryJson: null, memoryVersion };
    if (row.memory !== null) return { ...parts, memoryJson: row.memory, memoryVersion };
    if (!usable) throw new Error('the context statement left out a memory that is not kept');
    return { ...parts, memoryJson: kept.json, memoryVersion };
  }

  /** Keeps the newer of two reads that raced (versions only grow), as the most recently used. */
  #keep(accountId: string, memory: KeptMemory): void {
    const kept = this.#memories.get(accountId);
    this.#memories.delete(accountId);
    const newer = kept !== undefined && BigInt(kept.version) > BigInt(memory.version) ? kept : memory;
    this.#memories.set(accountId, newer);
    if (this.#memories.size > KEPT_ACCOUNTS) {
      const oldest = this.#memories.keys().next().value;
      if (oldest !== undefined) this.#memories.delete(oldest);
    }
  }
}

/**
 * $1 the account, $2 the calling agent (or null), $3 how many entries at most, $4 how many bytes of
 * content at most (the newest entry is carried whatever its size), $5 the version of the memory
 * the brain keeps for the account (or null). `memory` is null when the account's version is $5
 * (the subquery is then never executed: an InitPlan runs when its value is first needed); else
 * the entries' stored JSON texts (entry_json) joined, newest first. `used` is the content of the
 * entry and of all newer ones: a prefix of the newest rows stays within the budget.
 */
const CONTEXT_SQL = `
  WITH counts AS (
    SELECT coalesce(sum(n), 0)::bigint AS n, coalesce(sum(changes), 0)::bigint AS version
      FROM brain.memory_counts WHERE account_id = $1::uuid)
  SELECT json_build_object(
    'persona', (
      SELECT json_build_object('id', p.id, 'name', p.name, 'description', p.description,
                               'soul_content', p.soul_content, 'active', true)
        FROM brain.personas p
       WHERE p.account_id = $1::uuid
         AND p.id = coalesce(
           (SELECT a.persona_id FROM brain.persona_assignments a
             WHERE a.account_id = $1::uuid AND a.agent_id = $2::text),
           (SELECT d.persona_id FROM brain.persona_defaults d WHERE d.account_id = $1::uuid))),
    'user', (
      SELECT json_build_object('name', i.name, 'email', i.email, 'timezone', i.timezone,
                               'locale', i.locale, 'summary', i.summary)
        FROM brain.identity_profiles i WHERE i.account_id = $1::uuid),
    'memoryCount', counts.n
  )::text AS parts,
  counts.version::text AS version,
  CASE WHEN counts.version = $5::bigint THEN NULL ELSE
  (SELECT '[' || coalesce(string_agg(m.entry_json, ',' ORDER BY m.seq DESC), '') || ']'
     FROM (SELECT entry_json, seq,
                  sum(octet_length(content)) OVER newer AS used,
                  row_number() OVER newer AS n
             FROM brain.memory_entries
            WHERE account_id = $1::uuid
           WINDOW newer AS (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING)
            ORDER BY seq DESC LIMIT $3::int) m
    WHERE m.used <= $4::bigint OR m.n = 1) END AS memory
  FROM counts`;
