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
 * The reads are those of PersonaStore.applying (the agent's own persona, else the owner's
 * default), IdentityStore.find and MemoryStore.newest/count, in one statement.
 */
import type { Identity, Persona } from '@pag/contracts';
import { sqlPoolOf } from '@pag/kit';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface ContextParts {
  persona: Persona | null;
  /** Null while the account has no identity profile yet (the caller seeds it). */
  user: Identity | null;
  /** The newest entries as one JSON array text (MemoryEntry[]), unread: see the header. */
  memoryJson: string;
  memoryCount: number;
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
    const { rows } = await this.#sql.query<{ parts: string; memory: string }>({
      name: 'brain_context_read',
      text: CONTEXT_SQL,
      values: [accountId, callerAgentId, limit.entries, limit.bytes],
    });
    const [row] = rows;
    if (row === undefined) throw new Error('the context statement returned no row');
    const parts = JSON.parse(row.parts) as Omit<ContextParts, 'memoryJson'>;
    return { ...parts, memoryJson: row.memory };
  }
}

/**
 * $1 the account, $2 the calling agent (or null), $3 how many entries at most, $4 how many bytes of
 * content at most (the newest entry is carried whatever its size). `used` is the content of the
 * entry and of all newer ones: a prefix of the newest rows stays within the budget. The memory is
 * the entries' stored JSON texts (entry_json) joined, newest first.
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
    'memoryCount', (
      SELECT coalesce(sum(n), 0)::bigint FROM brain.memory_counts WHERE account_id = $1::uuid)
  )::text AS parts,
  (SELECT '[' || coalesce(string_agg(m.entry_json, ',' ORDER BY m.seq DESC), '') || ']'
     FROM (SELECT entry_json, seq,
                  sum(octet_length(content)) OVER newer AS used,
                  row_number() OVER newer AS n
             FROM brain.memory_entries
            WHERE account_id = $1::uuid
           WINDOW newer AS (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING)
            ORDER BY seq DESC LIMIT $3::int) m
    WHERE m.used <= $4::bigint OR m.n = 1) AS memory`;
