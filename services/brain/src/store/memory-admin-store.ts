/**
 * The owner's view of memory, and deletions: pages of entries newest first (by insertion order,
 * `seq`), narrowed to one agent's entries if asked, and deleting one entry or every entry of one
 * agent. Every statement filters by the account (tenancy); "an agent" null means the entries
 * written without one. The memory_counts triggers follow the deletions (the count stays true).
 */
import type { MemoryEntry } from '@pag/contracts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { MemoryHit } from './search.ts';
import { searchMemory } from './search.ts';

/** Whose entries: undefined every one, null those written without an agent, else that agent's. */
export type AgentFilter = string | null | undefined;

export interface MemoryPage {
  entries: MemoryEntry[];
  /** Where the next page starts (the last entry's seq), null when this is the last page. */
  nextBefore: bigint | null;
}

export class MemoryAdminStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** Up to `limit` entries, newest first, older than `before` (a seq) when given. */
  async page(
    accountId: string,
    options: { agentId: AgentFilter; limit: number; before: bigint | undefined },
  ): Promise<MemoryPage> {
    const rows = await this.#prisma.memoryEntry.findMany({
      where: {
        accountId,
        ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
        ...(options.before === undefined ? {} : { seq: { lt: options.before } }),
      },
      orderBy: { seq: 'desc' },
      take: options.limit + 1,
      select: { id: true, seq: true, content: true, agentId: true, createdAt: true },
    });
    const page = rows.slice(0, options.limit);
    const last = page.at(-1);
    return {
      entries: page.map((row) => ({
        id: row.id,
        content: row.content,
        agentId: row.agentId,
        createdAt: row.createdAt.toISOString(),
      })),
      nextBefore: rows.length > options.limit && last !== undefined ? last.seq : null,
    };
  }

  /** The brain's one full-text search over the account's entries (search.ts), best first. */
  async search(
    accountId: string,
    text: string,
    options: { agentId: AgentFilter; limit: number; offset: number },
  ): Promise<MemoryHit[]> {
    const { agentId, limit, offset } = options;
    return searchMemory(this.#prisma, accountId, text, {
      limit,
      offset,
      ...(agentId === undefined ? {} : { agentId }),
    });
  }

  /**
   * Deletes the account's entry `id`; with `writtenBy` given, only if that agent wrote it (null: an
   * entry written without an agent). Whether an entry was deleted.
   */
  async delete(accountId: string, id: string, writtenBy?: string | null): Promise<boolean> {
    const gone = await this.#prisma.memoryEntry.deleteMany({
      where: { accountId, id, ...(writtenBy === undefined ? {} : { agentId: writtenBy }) },
    });
    return gone.count > 0;
  }

  /** Deletes every entry of the account that `agentId` wrote (null: those without an agent). */
  async clear(accountId: string, agentId: string | null): Promise<number> {
    const gone = await this.#prisma.memoryEntry.deleteMany({ where: { accountId, agentId } });
    return gone.count;
  }
}
