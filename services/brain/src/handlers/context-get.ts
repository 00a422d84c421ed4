/**
 * brain.context.get (the gateway's GET /api/v1/gateway/context asks it): the brain's parts of the
 * agent's context, read together: the persona applying to the calling agent (active), the owner's
 * identity (seeded from the auth service on a fresh account) and the newest CONTEXT_MEMORY_LIMIT
 * memory entries, newest first, with the count of all of them (brain.memory_counts). Identity that cannot be had fails the whole reply (BrainContext
 * requires it); the gateway then reports the brain's parts unavailable.
 */
import { BrainEndpoints, CONTEXT_MEMORY_MAX } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

/** How many memory entries the context carries at most (the newest): the contracts say. */
export const CONTEXT_MEMORY_LIMIT = CONTEXT_MEMORY_MAX;

export const contextGet = handle(
  BrainEndpoints.contextGet,
  async (caller, _input, { stores, identity, defaultPersona }: BrainHandlerDeps) => {
    // Before the persona is read: an account met for the first time gets its default persona here.
    await defaultPersona.ensure(caller.accountId);
    const [persona, user, memory, memoryCount] = await Promise.all([
      stores.personas.applying(caller.accountId, caller.agentId),
      identity.get(caller.accountId, caller.requestId),
      stores.memory.newest(caller.accountId, CONTEXT_MEMORY_LIMIT),
      stores.memory.count(caller.accountId),
    ]);
    return { persona, user, memory, memoryCount };
  },
);
