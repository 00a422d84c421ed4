/**
 * brain.owner-knowledge.get: one document of the owner's knowledge base (to edit it); an id that
 * is not the owner's is 404 NOT_FOUND.
 */
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerKnowledgeGet = handle(
  BrainOwnerEndpoints.knowledgeGet,
  async (_caller, { accountId, id }, { stores }: BrainHandlerDeps) => {
    const document = await stores.knowledge.find(accountId, id);
    if (document === null) throw new AppError('NOT_FOUND', `No knowledge document ${id}.`);
    return document;
  },
);
