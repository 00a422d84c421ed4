/**
 * brain.owner-memory.list: the owner's memory entries, each with the agent that wrote it.
 * - Without q: newest first (insertion order), `limit` per page; nextCursor continues below the
 *   page's last entry, so entries written meanwhile never shift the pages.
 * - With q: the brain's full-text search (store/search.ts, the chat's and the knowledge base's
 *   too), best match first, each with its highlighted passage; nextCursor continues the ranking.
 * - agentId narrows to one agent's entries ("" for those written without an agent).
 * - total: every entry of the owner (brain.memory_counts), whatever the filter.
 * A cursor is opaque to the caller ("b<seq>" or "o<offset>"); one that is not this kind of page's
 * is 400 INVALID_REQUEST naming `cursor`.
 */
import type { OwnerMemoryPage } from '@pag/contracts';
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { AgentFilter } from '../store/memory-admin-store.ts';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerMemoryList = handle(
  BrainOwnerEndpoints.memoryList,
  async (_caller, query, { stores }: BrainHandlerDeps): Promise<OwnerMemoryPage> => {
    const { accountId, q, limit } = query;
    const agentId: AgentFilter = query.agentId === '' ? null : query.agentId;
    const total = stores.memory.count(accountId);
    if (q === undefined) {
      const before = readCursor(query.cursor, 'b');
      const page = await stores.memoryAdmin.page(accountId, { agentId, limit, before });
      return {
        entries: page.entries,
        nextCursor: page.nextBefore === null ? null : `b${page.nextBefore}`,
        total: await total,
      };
    }
    const offset = Number(readCursor(query.cursor, 'o') ?? 0n);
    const hits = await stores.memoryAdmin.search(accountId, q, { agentId, limit: limit + 1, offset });
    return {
      entries: hits.slice(0, limit).map((hit) => ({
        id: hit.id,
        content: hit.content,
        agentId: hit.agentId,
        createdAt: hit.createdAt.toISOString(),
        highlight: hit.highlight,
      })),
      nextCursor: hits.length > limit ? `o${offset + limit}` : null,
      total: await total,
    };
  },
);

/** The number in a cursor of the given kind; undefined without a cursor. */
function readCursor(cursor: string | undefined, kind: 'b' | 'o'): bigint | undefined {
  if (cursor === undefined) return undefined;
  const digits = cursor.slice(1);
  if (cursor[0] !== kind || !/^\d{1,18}$/.test(digits)) {
    throw new AppError(
      'INVALID_REQUEST',
      kind === 'b'
        ? 'cursor: not a cursor of this listing; pass the nextCursor of the previous page (without q).'
        : 'cursor: not a cursor of this search; pass the nextCursor of the previous page (same q).',
    );
  }
  return BigInt(digits);
}
