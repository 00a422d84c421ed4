/**
 * The brain's parts of an agent's context in one statement (one round trip, one plan, one row):
 * the persona applying to the calling agent, the owner's identity profile, the newest entries of
 * the memory and the count of all of them (brain.memory_counts, kept by triggers). PostgreSQL
 * builds the whole reply as one JSON text, which is parsed once here: four statements through
 * Prisma, each with its own request pipeline and row mapping (200 entries mapped field by field),
 * cost the brain's share of GET /api/v1/gateway/context most of its time. It runs as a named
 * statement on the client's node-postgres pool (kit's sqlPoolOf), not through Prisma, whose
 * request pipeline alone cost about 0.3 ms of CPU per statement. The entries are aggregated as
 * whole rows (json_agg of the row): building an object per entry with json_build_object and
 * to_char took PostgreSQL about twice as long for 200 entries. The memory is bounded twice, by
 * entries and by bytes of content: a window sum of octet_length (the stored size, read without
 * detoasting the text) over the newest rows, kept while it stays within the budget, so only the
 * entries carried are ever detoasted and aggregated. docs/adr/0043.
 *
 * The reads are those of PersonaStore.applying (the agent's own persona, else the owner's
 * default), IdentityStore.find and MemoryStore.newest/count, in one statement.
 */
import type { Identity, MemoryEntry, Persona } from '@pag/contracts';
import { sqlPoolOf } from '@pag/kit';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isoUtc } from './utc-text.ts';

export interface ContextParts {
  persona: Persona | null;
  /** Null while the account has no identity profile yet (the caller seeds it). */
  user: Identity | null;
  memory: MemoryEntry[];
  memoryCount: number;
}

/**
 * An entry as the statement writes it: each row whole (json_agg of the row), created_at as UTC
 * without an offset in PostgreSQL's JSON form ("2026-11-24T08:52:59.2": trailing zeros of the
 * milliseconds dropped).
 */
interface StoredEntry {
  id: string;
  content: string;
  agentId: string | null;
  createdAt: string;
  seq: number;
}

/** The entry as MemoryStore answers it: createdAt as toISOString writes it, and no seq. */
function toEntry(row: StoredEntry): MemoryEntry {
  return { id: row.id, content: row.content, agentId: row.agentId, createdAt: isoUtc(row.createdAt) };
}

export class ContextStore {
  readonly #sql: ReturnType<typeof sqlPoolOf>;

  constructor(prisma: PrismaClient) {
    // On node-postgres directly: the brain's hottest read (see the header).
    this.#sql = sqlPoolOf(prisma);
  }

  /**
   * The parts for `callerAgentId` of the account, with the newest entries, newest first: at most
   * `limit.entries` of them and `limit.bytes` of content (UTF-8) in all, and always the newest.
   */
  async read(
    accountId: string,
    callerAgentId: string | null,
    limit: { entries: number; bytes: number },
  ): Promise<ContextParts> {
    const { rows } = await this.#sql.query<{ parts: string }>({
      name: 'brain_context_read',
      text: CONTEXT_SQL,
      values: [accountId, callerAgentId, limit.entries, limit.bytes],
    });
    const [row] = rows;
    if (row === undefined) throw new Error('the context statement returned no row');
    const parts = JSON.parse(row.parts) as Omit<ContextParts, 'memory'> & { memory: StoredEntry[] };
    return { ...parts, memory: parts.memory.map(toEntry) };
  }
}

/**
 * $1 the account, $2 the calling agent (or null), $3 how many entries at most, $4 how many bytes of
 * content at most (the newest entry is carried whatever its size). `used` is the content of the
 * entry and of all newer ones: a prefix of the newest rows stays within the budget.
 */
const CONTEXT_SQL = `
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
    'memory', (
      SELECT coalesce(json_agg(m ORDER BY m.seq DESC), '[]'::json)
        FROM (SELECT id, content, "agentId", "createdAt", seq
                FROM (SELECT id, content, agent_id AS "agentId", created_at AT TIME ZONE 'UTC' AS "createdAt", seq,
                             sum(octet_length(content)) OVER newer AS used,
                             row_number() OVER newer AS n
                        FROM brain.memory_entries
                       WHERE account_id = $1::uuid
                      WINDOW newer AS (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING)
                       ORDER BY seq DESC LIMIT $3::int) newest
               WHERE used <= $4::bigint OR n = 1) m),
    'memoryCount', (
      SELECT coalesce(sum(n), 0)::bigint FROM brain.memory_counts WHERE account_id = $1::uuid)
  )::text AS parts`;
