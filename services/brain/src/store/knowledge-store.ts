/**
/**
 * The owner's knowledge-base documents. Only the account's own rows: a document of another
 * account is as absent as one that never existed.
 *
 * One page of them (`page`) serves the agent route (GET /api/v1/brain/knowledge-base) and the
 * owner's listing alike: without `q`, most recently updated first (ties by id), paged by keyset
 * (the cursor carries the last row's update time and id, so a document added meanwhile neither
 * repeats nor hides a row); with `q`, the brain's one full-text search (search.ts), best first,
 * paged by offset into the ranked matches. Each page reads one row more than it returns to know
 * whether another follows. `list` (every document) is `pag knowledge list`'s.
 */
import type { KnowledgeBase, KnowledgeDocument } from '@pag/contracts';
import { decodeAfter, decodeOffset, encodeAfter, encodeOffset } from '../domain/page-cursor.ts';
import { newId } from '../domain/resource-id.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { KnowledgeHit, Page } from './search.ts';
import { searchKnowledge } from './search.ts';

export interface KnowledgePageQuery {
  q?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** A document's fields as the owner gives them. */
export interface DocumentFields {
  title: string;
  kind: string;
  content: string;
}

const DOCUMENT_SELECT = {
  id: true,
  title: true,
  kind: true,
  content: true,
  createdAt: true,
  updatedAt: true,
} as const;

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
      select: DOCUMENT_SELECT,
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

  /** Every document of the account, most recently updated first (`pag knowledge list`). */
  async list(accountId: string): Promise<KnowledgeBase> {
    const rows = await this.#prisma.knowledgeDocument.findMany({
      where: { accountId },
      orderBy: [{ updatedAt: 'desc' }, { id: 'asc' }],
      select: DOCUMENT_SELECT,
    });
    return { documents: rows.map(toDocument), nextCursor: null };
  }

  /** The brain's one full-text search over the account's documents (search.ts), best first. */
  async search(accountId: string, text: string, page: Page): Promise<KnowledgeHit[]> {
    return searchKnowledge(this.#prisma, accountId, text, page);
  }

  async find(accountId: string, id: string): Promise<KnowledgeDocument | null> {
    const row = await this.#prisma.knowledgeDocument.findFirst({
      where: { accountId, id },
      select: DOCUMENT_SELECT,
    });
    return row === null ? null : toDocument(row);
  }

  async create(accountId: string, fields: DocumentFields): Promise<KnowledgeDocument> {
    const row = await this.#prisma.knowledgeDocument.create({
      data: { id: newId('document'), accountId, ...fields },
      select: DOCUMENT_SELECT,
    });
    return toDocument(row);
  }

  /** Replaces the title, kind and content of the account's document `id`; null if it has none. */
  async update(accountId: string, id: string, fields: DocumentFields): Promise<KnowledgeDocument | null> {
    const changed = await this.#prisma.knowledgeDocument.updateMany({
      where: { accountId, id },
      data: { ...fields, updatedAt: new Date() },
    });
    return changed.count === 0 ? null : this.find(accountId, id);
  }

  /** Whether the account had a document `id` (now deleted). */
  async delete(accountId: string, id: string): Promise<boolean> {
    const gone = await this.#prisma.knowledgeDocument.deleteMany({ where: { accountId, id } });
    return gone.count > 0;
  }
}

function toDocument(row: {
  id: string;
  title: string;
  kind: string;
  content: string;
  createdAt: Date;
  updatedAt: Date;
}): KnowledgeDocument {
  return { ...row, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}
