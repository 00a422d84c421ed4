/**
 * The owner's knowledge-base documents. Only the account's own rows.
 *
 * One page of them (`page`) serves the agent route (GET /api/v1/brain/knowledge-base) and the
 * owner's listing alike: without `q`, most recently updated first (ties by id), paged by keyset
 * (the cursor carries the last row's update time and id, so a document added meanwhile neither
 * repeats nor hides a row); with `q`, the brain's one full-text search (search.ts), best first,
 * paged by offset into the ranked matches. Each page reads one row more than it returns to know
 * whether another follows.
 */
import type { KnowledgeBase, KnowledgeDocument } from '@pag/contracts';
import { decodeAfter, decodeOffset, encodeAfter, encodeOffset } from '../domain/page-cursor.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { searchKnowledge } from './search.ts';

export interface KnowledgePageQuery {
  q?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

interface DocumentRow {
  id: string;
  title: string;
  kind: string;
  content: string;
  createdAt: Date;
  updatedAt: Date;
}

export class KnowledgeStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  async page(accountId: string, query: KnowledgePageQuery): Promise<KnowledgeBase> {
    return query.q === undefined ? this.#newest(accountId, query) : this.#search(accountId, query.q, query);
  }

  async #newest(accountId: string, query: KnowledgePageQuery): Promise<KnowledgeBase> {
    const after = query.cursor === undefined ? null : decodeAfter(query.cursor);
    const rows = await this.#prisma.knowledgeDocument.findMany({
      where: {
        accountId,
        ...(after === null
          ? {}
          : {
              OR: [
                { updatedAt: { lt: after.updatedAt } },
                { updatedAt: after.updatedAt, id: { gt: after.id } },
              ],
            }),
      },
      orderBy: [{ updatedAt: 'desc' }, { id: 'asc' }],
      take: query.limit + 1,
      select: { id: true, title: true, kind: true, content: true, createdAt: true, updatedAt: true },
    });
    const documents = rows.slice(0, query.limit);
    const last = documents.at(-1);
    return {
      documents: documents.map(toDocument),
      nextCursor: rows.length > query.limit && last !== undefined ? encodeAfter(last) : null,
    };
  }

  async #search(accountId: string, q: string, query: KnowledgePageQuery): Promise<KnowledgeBase> {
    const offset = query.cursor === undefined ? 0 : decodeOffset(query.cursor);
    const hits = await searchKnowledge(this.#prisma, accountId, q, { limit: query.limit + 1, offset });
    const documents = hits
      .slice(0, query.limit)
      .map((hit) => ({ ...toDocument(hit), rank: hit.rank, highlight: hit.highlight }));
    return {
      documents,
      nextCursor: hits.length > query.limit ? encodeOffset(offset + query.limit) : null,
    };
  }
}

function toDocument(row: DocumentRow): KnowledgeDocument {
  return {
    id: row.id,
    title: row.title,
    kind: row.kind,
    content: row.content,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
