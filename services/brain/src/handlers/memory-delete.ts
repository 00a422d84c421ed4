/**
 * brain.memory.delete (DELETE /api/v1/memory/:id, no scope beyond a valid token): an agent deletes
 * an entry it wrote itself (a token without an agent: an entry written without one). Any other
 * entry, the same owner's other agents' included, is 404 NOT_FOUND, exactly like an id that never
 * existed, so the answer never tells that an entry exists. The owner deletes any entry from the
 * dashboard (brain.owner-memory.delete).
 */
import { AppError, BrainEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const memoryDelete = handle(
  BrainEndpoints.memoryDelete,
  async (caller, { params }, { stores }: BrainHandlerDeps) => {
    if (!(await stores.memoryAdmin.delete(caller.accountId, params.id, caller.agentId))) {
      throw new AppError('NOT_FOUND', `No memory entry ${params.id} written by this agent.`);
    }
    caller.logger.info({ accountId: caller.accountId, memoryId: params.id }, 'memory entry deleted');
    return { id: params.id, deleted: true as const };
  },
);
