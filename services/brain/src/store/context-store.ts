/**
 * The brain's parts of an agent's context in one statement (one round trip, one plan, one row):
 * the persona applying to the calling agent, the owner's identity profile, the newest entries of
 * the memory and the count of all of them (brain.memory_counts, kept by triggers). PostgreSQL
 * builds the whole reply as one JSON text, which is parsed once here: four statements through
 * Prisma, each with its own request pipeline and row mapping (200 entries mapped field by field),
 * cost the brain's share of GET /api/v1/gateway/context most of its time (bench/profile-notes.md).
 * The entries are aggregated as whole rows (json_agg of the row): building an object per entry
 * with json_build_object and to_char took PostgreSQL about twice as long for 200 entries.
 *
 * The reads are those of PersonaStore.applying (the agent's own persona, else the owner's
 * default), IdentityStore.find and MemoryStore.newest/count; store tests hold both to the same
 * answers.
 */
import type { Identity, MemoryEntry, Persona } from '@pag/contracts';
import type { PrismaClient } from '../generated/prisma/client.ts';

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

/**
 * The entry as MemoryStore answers it: createdAt as toISOString writes it, and no seq. The time
 * is completed as text: parsing 200 dates and writing them again took longer than the rest of
 * the brain's work on the reply (a Date from text costs about a microsecond each).
 */
function toEntry(row: StoredEntry): MemoryEntry {
  return { id: row.id, content: row.content, agentId: row.agentId, createdAt: isoUtc(row.createdAt) };
}

/** "2026-11-24T08:52:59.2" → "2026-11-24T08:52:59.200Z" (timestamptz(3): at most 3 digits). */
export function isoUtc(utc: string): string {
  const seconds = utc.slice(0, 19);
  const fraction = utc.length > 20 ? utc.slice(20) : '';
  return `${seconds}.${fraction.padEnd(3, '0')}Z`;
}

export class ContextStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** The parts for `callerAgentId` of the account, with the newest `limit` entries, newest first. */
  async read(accountId: string, callerAgentId: string | null, limit: number): Promise<ContextParts> {
    const [row] = await this.#prisma.$queryRaw<{ parts: string }[]>`
      SELECT json_build_object(
        'persona', (
          SELECT json_build_object('id', p.id, 'name', p.name, 'description', p.description,
                                   'soul_content', p.soul_content, 'active', true)
            FROM brain.personas p
           WHERE p.account_id = ${accountId}::uuid
             AND p.id = coalesce(
               (SELECT a.persona_id FROM brain.persona_assignments a
                 WHERE a.account_id = ${accountId}::uuid AND a.agent_id = ${callerAgentId}),
               (SELECT d.persona_id FROM brain.persona_defaults d WHERE d.account_id = ${accountId}::uuid))),
        'user', (
          SELECT json_build_object('name', i.name, 'email', i.email, 'timezone', i.timezone,
                                   'locale', i.locale, 'summary', i.summary)
            FROM brain.identity_profiles i WHERE i.account_id = ${accountId}::uuid),
        'memory', (
          SELECT coalesce(json_agg(m ORDER BY m.seq DESC), '[]'::json)
            FROM (SELECT id, content, agent_id AS "agentId", created_at AT TIME ZONE 'UTC' AS "createdAt", seq
                    FROM brain.memory_entries
                   WHERE account_id = ${accountId}::uuid ORDER BY seq DESC LIMIT ${limit}::int) m),
        'memoryCount', (
          SELECT coalesce(sum(n), 0)::bigint FROM brain.memory_counts WHERE account_id = ${accountId}::uuid)
      )::text AS parts`;
    if (row === undefined) throw new Error('the context statement returned no row');
    const parts = JSON.parse(row.parts) as Omit<ContextParts, 'memory'> & { memory: StoredEntry[] };
    return { ...parts, memory: parts.memory.map(toEntry) };
  }
}
