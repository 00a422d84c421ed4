/**
 * brain.owner-knowledge.delete: deletes a document of the owner's knowledge base; an id that is
 * not the owner's is 404 NOT_FOUND.
 */
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerKnowledgeDelete = handle(
  BrainOwnerEndpoints.knowledgeDelete,
  async (caller, { accountId, id }, { stores }: BrainHandlerDeps) => {
    if (!(await stores.knowledge.delete(accountId, id))) {
      throw new AppError('NOT_FOUND', `No knowledge document ${id}.`);
    }
    caller.logger.info({ accountId, documentId: id }, 'knowledge document deleted');
    return { id, deleted: true as const };
  },
);
