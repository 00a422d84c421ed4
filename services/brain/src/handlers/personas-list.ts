/**
 * brain.personas.list (GET /api/v1/personas): the owner's personas, the one applying to the
 * calling agent marked `active` (its own, else the default;
 * an account met for the first time gets its default persona first).
 */
import { BrainEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const personasList = handle(
  BrainEndpoints.personasList,
  async (caller, _input, { stores, defaultPersona }: BrainHandlerDeps) => {
    await defaultPersona.ensure(caller.accountId);
    return { personas: await stores.personas.list(caller.accountId, caller.agentId) };
  },
);
