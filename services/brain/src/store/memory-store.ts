/**
 * Memory entries of one owner: written by its agents, read newest first. Every query filters by
 * the account (tenancy); insertion order (`seq`) decides "newest", so two notes written within
 * one millisecond still come back in the order they were written.
 */
import type { MemoryEntry } from '@pag/contracts';
import { sqlPoolOf } from '@pag/kit';
import { newId } from '../domain/resource-id.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isoUtc } from './utc-text.ts';

export class MemoryStore {
  readonly #prisma: PrismaClient;
  readonly #sql: ReturnType<typeof sqlPoolOf>;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
    this.#sql = sqlPoolOf(prisma);
  }

  /**
   * One named INSERT … RETURNING on node-postgres (kit's sqlPoolOf): the write of every
   * POST /api/v1/memory, where Prisma's create cost about 0.5 ms of CPU more (docs/adr/0043).
   * `content` comes from MemoryWriteRequest, whose plainText is storable text.
   */
  async write(accountId: string, agentId: string | null, content: string): Promise<MemoryEntry> {
    const { rows } = await this.#sql.query<{
      id: string;
      content: string;
      agent_id: string | null;
      created_at: string;
    }>({
      name: 'brain_memory_write',
      text: `INSERT INTO brain.memory_entries (id, account_id, agent_id, content) VALUES ($1, $2::uuid, $3, $4)
             RETURNING id, content, agent_id, (created_at AT TIME ZONE 'UTC')::text AS created_at`,
      values: [newId('memory'), accountId, agentId, content],
    });
    const [row] = rows;
    if (row === undefined) throw new Error('the memory insert returned no row');
    return { id: row.id, content: row.content, agentId: row.agent_id, createdAt: isoUtc(row.created_at) };
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
