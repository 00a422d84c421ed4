/**
 * brain.memory.create (POST /api/v1/memory, answered 201 by the gateway): stores a memory note
 * for the owner, recording the agent that wrote it. The body is checked again against
 * MemoryWriteRequest, which also holds the MEMORY_MAX_BYTES limit (64 KiB of UTF-8).
 */
import type { MemoryEntry } from '@pag/contracts';
import { MemoryWriteRequest } from '@pag/contracts';
import type { BusMessage } from '@pag/kit';
import { invalidRequest } from '../errors.ts';
import { readCaller, requireRouteScope } from './caller.ts';
import type { BrainApiDeps } from './mod.ts';

export function memoryCreate({ stores, logger }: BrainApiDeps) {
  return async (msg: BusMessage<unknown>): Promise<MemoryEntry> => {
    const caller = readCaller(msg);
    requireRouteScope(caller, 'writeMemory');
    const body = MemoryWriteRequest.safeParse(caller.request.body);
    if (!body.success) throw invalidRequest('memory entry', body.error, 'body');
    const entry = await stores.memory.write(caller.accountId, caller.agentId, body.data.content);
    logger.info(
      { requestId: caller.requestId, accountId: caller.accountId, memoryId: entry.id },
      'memory written',
    );
    return entry;
  };
}
