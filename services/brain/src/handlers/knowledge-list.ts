/**
 * brain.knowledge.list (GET /api/v1/brain/knowledge-base, scope `knowledge`, re-checked by
 * serveEndpoints) and brain.owner-knowledge.list (the owner's dashboard): one listing
 * (KnowledgeStore.page). Without ?q= the documents most recently updated first; with it the
 * full-text matches best first, each with its rank and highlight. ?limit= 1..100 (default 20);
 * ?cursor= the previous page's nextCursor (400 naming `cursor` when it is not one).
 */
import { BRAIN_PAGE_DEFAULT, BrainEndpoints, BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const knowledgeList = handle(
  BrainEndpoints.knowledgeList,
  (caller, { query }, { stores }: BrainHandlerDeps) =>
    stores.knowledge.page(caller.accountId, {
      q: query.q,
      limit: query.limit ?? BRAIN_PAGE_DEFAULT,
      cursor: query.cursor,
    }),
);

export const ownerKnowledgeList = handle(
  BrainOwnerEndpoints.knowledgeList,
  (_caller, { accountId, ...query }, { stores }: BrainHandlerDeps) => stores.knowledge.page(accountId, query),
);
