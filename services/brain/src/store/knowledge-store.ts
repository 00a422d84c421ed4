/**
 * The owner's knowledge-base documents, most recently updated first. Only the account's own rows.
 */
import type { KnowledgeBase } from '@pag/contracts';
import type { PrismaClient } from '../generated/prisma/client.ts';

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
}
