/**
 * brain.personas.list (GET /api/v1/personas): the owner's personas, the one applying to the
 * calling agent marked `active` (its own, else the default, else none).
 */
import { BrainEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const personasList = handle(
  BrainEndpoints.personasList,
  async (caller, _input, { stores }: BrainHandlerDeps) => ({
    personas: await stores.personas.list(caller.accountId, caller.agentId),
  }),
);
