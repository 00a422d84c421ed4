/**
 * brain.owner-personas.assign: gives an agent of the owner a persona of its own (one of the
 * owner's personas, else 404 NOT_FOUND), or with personaId null lets it follow the default again.
 * The agent id is the auth service's; the brain keeps it as given (an agent the owner deleted
 * only leaves a row that nothing reads).
 */
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerPersonaAssign = handle(
  BrainOwnerEndpoints.personaAssign,
  async (caller, { accountId, agentId, personaId }, { stores }: BrainHandlerDeps) => {
    const result = await stores.personas.assign(accountId, agentId, personaId);
    if (result === 'persona-not-found') throw new AppError('NOT_FOUND', `No persona ${personaId}.`);
    caller.logger.info({ accountId, agentId, personaId }, 'persona assigned');
    return { agentId, personaId };
  },
);
