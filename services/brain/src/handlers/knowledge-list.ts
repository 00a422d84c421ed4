/**
 * brain.knowledge.list (GET /api/v1/brain/knowledge-base, scope `knowledge`): the owner's
 * knowledge-base documents, most recently updated first.
 */
import type { KnowledgeBase } from '@pag/contracts';
import type { BusMessage } from '@pag/kit';
import { readCaller, requireRouteScope } from './caller.ts';
import type { BrainApiDeps } from './mod.ts';

export function knowledgeList({ stores }: BrainApiDeps) {
  return async (msg: BusMessage<unknown>): Promise<KnowledgeBase> => {
    const caller = readCaller(msg);
    requireRouteScope(caller, 'knowledgeBase');
    return stores.knowledge.list(caller.accountId);
  };
}
