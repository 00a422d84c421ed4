/**
 * The owner's knowledge-base documents, most recently updated first. Only the account's own rows:
 * a document of another account is as absent as one that never existed.
 */
import type { KnowledgeBase, KnowledgeDocument } from '@pag/contracts';
import { newId } from '../domain/resource-id.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { KnowledgeHit, Page } from './search.ts';
import { searchKnowledge } from './search.ts';

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

  async list(accountId: string): Promise<KnowledgeBase> {
    const rows = await this.#prisma.knowledgeDocument.findMany({
      where: { accountId },
      orderBy: [{ updatedAt: 'desc' }, { id: 'asc' }],
      select: { id: true, title: true, kind: true, content: true, createdAt: true, updatedAt: true },
    });
    const documents = rows.map((row) => ({
      ...row,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    }));
    // Paging and ?q= arrive with the chat helper's knowledge-base work (issue 12).
    return { documents, nextCursor: null };
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
