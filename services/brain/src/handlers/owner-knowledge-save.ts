/**
 * brain.owner-knowledge.save: adds a document to the owner's knowledge base (no id) or replaces
 * the title, kind and content of one (id; 404 NOT_FOUND when it is not the owner's). KnowledgeSave
 * has checked the kind (KnowledgeKind) and the size (KNOWLEDGE_MAX_BYTES of UTF-8).
 */
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerKnowledgeSave = handle(
  BrainOwnerEndpoints.knowledgeSave,
  async (caller, { accountId, id, title, kind, content }, { stores }: BrainHandlerDeps) => {
    const fields = { title, kind, content };
    const document =
      id === undefined
        ? await stores.knowledge.create(accountId, fields)
        : await stores.knowledge.update(accountId, id, fields);
    if (document === null) throw new AppError('NOT_FOUND', `No knowledge document ${id}.`);
    caller.logger.info({ accountId, documentId: document.id }, 'knowledge document saved');
    return document;
  },
);
