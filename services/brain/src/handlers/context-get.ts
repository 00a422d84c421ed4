/**
 * brain.context.get (the gateway's GET /api/v1/gateway/context asks it): the brain's parts of the
 * agent's context, read in one statement (store/context-store.ts): the persona applying to the
 * calling agent (active), the owner's identity (seeded from the auth service on a fresh account)
 * and the newest memory entries, newest first, at most CONTEXT_MEMORY_LIMIT of them and
 * CONTEXT_MEMORY_MAX_BYTES of their content (at least the newest), as one JSON array text built by
 * PostgreSQL and handed on unread, with the count of all of them (brain.memory_counts). Identity that cannot be had fails the whole reply (BrainContext requires
 * it); the gateway then reports the brain's parts unavailable.
 */
import { BrainEndpoints, CONTEXT_MEMORY_MAX, CONTEXT_MEMORY_MAX_BYTES } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

/** How many memory entries the context carries at most (the newest): the contracts say. */
export const CONTEXT_MEMORY_LIMIT = CONTEXT_MEMORY_MAX;
/** How many bytes of content (UTF-8) those entries carry at most in all: the contracts say. */
export const CONTEXT_MEMORY_BYTES = CONTEXT_MEMORY_MAX_BYTES;

export const contextGet = handle(
  BrainEndpoints.contextGet,
  async (caller, input, { stores, identity, defaultPersona }: BrainHandlerDeps) => {
    // Before the persona is read: an account met for the first time gets its default persona here
    // (once per account and process; later reads skip it).
    await defaultPersona.ensure(caller.accountId);
    // One statement (store/context-store.ts); a fresh account's identity is seeded on this read.
    // The memory's text is left out when it is still the version the gateway has (memoryJson null).
    const { persona, user, memoryJson, memoryVersion, memoryCount } = await stores.context.read(
      caller.accountId,
      caller.agentId,
      { entries: CONTEXT_MEMORY_LIMIT, bytes: CONTEXT_MEMORY_BYTES },
      input.query.memoryVersion ?? null,
    );
    return {
      persona,
      user: user ?? (await identity.get(caller.accountId, caller.requestId)),
      memoryJson,
      memoryVersion,
      memoryCount,
    };
  },
);
