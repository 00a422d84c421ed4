/**
 * Memory entries of one owner: written by its agents, read newest first. Every query filters by
 * the account (tenancy); insertion order (`seq`) decides "newest", so two notes written within
 * one millisecond still come back in the order they were written.
 */
import type { MemoryEntry } from '@pag/contracts';
import { GroupCommit, sqlPoolOf } from '@pag/kit';
import { newId } from '../domain/resource-id.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isoUtc } from './utc-text.ts';

/** One note to store; its id is made before the write, so writing it again cannot store it twice. */
interface NewEntry {
  id: string;
  accountId: string;
  agentId: string | null;
  content: string;
}

/**
 * Notes written at once share one INSERT and one commit (kit's GroupCommit): a commit per note
 * waited for its own WAL flush and cost a statement of node-postgres and PostgreSQL each
 * (docs/adr/0060). The most notes in one statement: 64 KiB each at most, so a batch stays below
 * about 16 MiB of content.
 */
const MAX_NOTES_PER_COMMIT = 256;

export class MemoryStore {
  readonly #prisma: PrismaClient;
  readonly #sql: ReturnType<typeof sqlPoolOf>;
  readonly #writes: GroupCommit<NewEntry, MemoryEntry>;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
    this.#sql = sqlPoolOf(prisma);
    this.#writes = new GroupCommit({
      maxBatch: MAX_NOTES_PER_COMMIT,
      commit: (entries) => this.#insert(entries),
    });
  }

  /**
   * Stores a note; resolves once it is committed (with the notes written at the same time).
   * `content` comes from MemoryWriteRequest, whose plainText is storable text.
   */
  write(accountId: string, agentId: string | null, content: string): Promise<MemoryEntry> {
    return this.#writes.write({ id: newId('memory'), accountId, agentId, content });
  }

  /**
   * One named INSERT … SELECT on node-postgres (kit's sqlPoolOf; Prisma's create cost about 0.5 ms
   * of CPU more, docs/adr/0043): the same statement text for any number of notes, so it is
   * prepared once per connection. The notes travel as one JSON text read by json_to_recordset
   * (docs/adr/0073): JSON.stringify is native, where four TEXT[] parameters were escaped element by
   * element in node-postgres' JavaScript (pg/lib/utils.js escapeElement). WITH ORDINALITY and
   * ORDER BY give the rows their `seq` in the order the notes were written; the answer is matched
   * by id, not by the order of RETURNING.
   */
  async #insert(entries: readonly NewEntry[]): Promise<MemoryEntry[]> {
    const { rows } = await this.#sql.query<{ id: string; created_at: string }>({
      name: 'brain_memory_write_json',
      text: `INSERT INTO brain.memory_entries (id, account_id, agent_id, content)
             SELECT note.id, note.account_id, note.agent_id, note.content
               FROM ROWS FROM (json_to_recordset($1::json)
                               AS (id text, account_id uuid, agent_id text, content text))
                    WITH ORDINALITY AS note(id, account_id, agent_id, content, n)
              ORDER BY note.n
             RETURNING id, (created_at AT TIME ZONE 'UTC')::text AS created_at`,
      values: [
        JSON.stringify(
          entries.map((entry) => ({
            id: entry.id,
            account_id: entry.accountId,
            agent_id: entry.agentId,
            content: entry.content,
          })),
        ),
      ],
    });
    const createdAt = new Map(rows.map((row) => [row.id, row.created_at]));
    return entries.map((entry) => {
      const time = createdAt.get(entry.id);
      if (time === undefined) throw new Error(`the memory insert returned no row for ${entry.id}`);
      return { id: entry.id, content: entry.content, agentId: entry.agentId, createdAt: isoUtc(time) };
    });
  }

  /** The newest `limit` entries of the account, newest first. */
  async newest(accountId: string, limit: number): Promise<MemoryEntry[]> {
    const rows = await this.#prisma.memoryEntry.findMany({
      where: { accountId },
      orderBy: { seq: 'desc' },
      take: limit,
      select: { id: true, content: true, agentId: true, createdAt: true },
    });
    return rows.map(toEntry);
  }

  /** Every entry of the account, counted by the memory_counts triggers (no scan of the entries). */
  async count(accountId: string): Promise<number> {
    const [row] = await this.#prisma.$queryRaw<{ n: bigint | null }[]>`
      SELECT sum(n)::bigint AS n FROM brain.memory_counts WHERE account_id = ${accountId}::uuid`;
    return Number(row?.n ?? 0n);
  }
}

function toEntry(row: { id: string; content: string; agentId: string | null; createdAt: Date }): MemoryEntry {
  return { id: row.id, content: row.content, agentId: row.agentId, createdAt: row.createdAt.toISOString() };
}
