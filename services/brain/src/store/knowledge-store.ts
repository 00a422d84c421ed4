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
      select: { id: true, title: true, kind: true, content: true, updatedAt: true },
    });
    return { documents: rows.map((row) => ({ ...row, updatedAt: row.updatedAt.toISOString() })) };
  }
}
