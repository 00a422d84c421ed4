/**
 * brain.memory.create (POST /api/v1/memory, answered 201 by the gateway): stores a memory note
 * for the owner, recording the agent that wrote it. The body has been checked again against
 * MemoryWriteRequest (the endpoint's request), which also holds the MEMORY_MAX_BYTES limit.
 */
import { BrainEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const memoryCreate = handle(
  BrainEndpoints.memoryCreate,
  async (caller, { body }, { stores }: BrainHandlerDeps) => {
    const entry = await stores.memory.write(caller.accountId, caller.agentId, body.content);
    caller.logger.info({ accountId: caller.accountId, memoryId: entry.id }, 'memory written');
    return entry;
  },
);
