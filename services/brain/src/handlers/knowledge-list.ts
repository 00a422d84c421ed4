/**
 * brain.knowledge.list (GET /api/v1/brain/knowledge-base, scope `knowledge`, re-checked by
 * serveEndpoints): the owner's knowledge-base documents, most recently updated first.
 */
import { BrainEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const knowledgeList = handle(
  BrainEndpoints.knowledgeList,
  (caller, _input, { stores }: BrainHandlerDeps) => stores.knowledge.list(caller.accountId),
);
