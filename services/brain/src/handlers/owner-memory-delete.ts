/**
 * brain.owner-memory.delete: deletes one entry of the owner's memory, whichever agent wrote it;
 * an id that is not the owner's is 404 NOT_FOUND.
 */
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerMemoryDelete = handle(
  BrainOwnerEndpoints.memoryDelete,
  async (caller, { accountId, id }, { stores }: BrainHandlerDeps) => {
    if (!(await stores.memoryAdmin.delete(accountId, id))) {
      throw new AppError('NOT_FOUND', `No memory entry ${id}.`);
    }
    caller.logger.info({ accountId, memoryId: id }, 'memory entry deleted by the owner');
    return { id, deleted: true as const };
  },
);
