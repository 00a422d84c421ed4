/**
 * brain.owner-personas.delete: deletes the owner's persona; the agents it was assigned to follow
 * the default again. The default cannot be deleted (409 CONFLICT: make another one the default
 * first); an id that is not the owner's is 404 NOT_FOUND.
 */
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerPersonaDelete = handle(
  BrainOwnerEndpoints.personaDelete,
  async (caller, { accountId, id }, { stores }: BrainHandlerDeps) => {
    const result = await stores.personas.delete(accountId, id);
    if (result === 'not-found') throw new AppError('NOT_FOUND', `No persona ${id}.`);
    if (result === 'is-default') {
      throw new AppError('CONFLICT', `Persona ${id} is the default persona and cannot be deleted.`, {
        hint: 'Make another persona the default first, then delete this one.',
      });
    }
    caller.logger.info({ accountId, personaId: id }, 'persona deleted');
    return { id, deleted: true as const };
  },
);
