/**
 * brain.owner-personas.list (the dashboard and `pag persona list`): every persona of the owner,
 * oldest first, with whether it is the default and the agents it is assigned to. An account met
 * for the first time gets its default persona first.
 */
import { BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerPersonasList = handle(
  BrainOwnerEndpoints.personasList,
  async (_caller, { accountId }, { stores, defaultPersona }: BrainHandlerDeps) => {
    await defaultPersona.ensure(accountId);
    return { personas: await stores.personas.ownerList(accountId) };
  },
);
