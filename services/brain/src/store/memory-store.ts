/**
 * Memory entries of one owner: written by its agents, read newest first. Every query filters by
 * the account (tenancy); insertion order (`seq`) decides "newest", so two notes written within
 * one millisecond still come back in the order they were written.
 */
import type { MemoryEntry } from '@pag/contracts';
import { newId } from '../domain/resource-id.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export class MemoryStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async write(accountId: string, agentId: string | null, content: string): Promise<MemoryEntry> {
    const row = await this.#prisma.memoryEntry.create({
      data: { id: newId('memory'), accountId, agentId, content },
      select: { id: true, content: true, agentId: true, createdAt: true },
    });
    return toEntry(row);
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
