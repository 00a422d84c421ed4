/**
 * brain.owner-memory.clear: deletes every entry one agent of the owner wrote (agentId null: every
 * entry written without an agent), answering how many went. Other agents' entries stay.
 */
import { BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerMemoryClear = handle(
  BrainOwnerEndpoints.memoryClear,
  async (caller, { accountId, agentId }, { stores }: BrainHandlerDeps) => {
    const deleted = await stores.memoryAdmin.clear(accountId, agentId);
    caller.logger.info({ accountId, agentId, deleted }, 'memory of an agent cleared by the owner');
    return { deleted };
  },
);
