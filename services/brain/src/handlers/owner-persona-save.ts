/**
 * brain.owner-personas.save: creates a persona (no id) or changes the owner's persona `id`
 * (name, description, soul_content), and with makeDefault makes it the default (the previous
 * default stays as an ordinary persona). A name another persona of the owner has is 409 CONFLICT;
 * an id that is not the owner's is 404 NOT_FOUND, whoever's it is.
 */
import { AppError, BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerPersonaSave = handle(
  BrainOwnerEndpoints.personaSave,
  async (caller, input, { stores, defaultPersona }: BrainHandlerDeps) => {
    // First, so a persona saved on a fresh account does not stop it getting its default.
    await defaultPersona.ensure(input.accountId);
    const saved = await stores.personas.save(input.accountId, input.id, {
      name: input.name,
      description: input.description,
      soulContent: input.soul_content,
      makeDefault: input.makeDefault ?? false,
    });
    if (saved === 'not-found') throw new AppError('NOT_FOUND', `No persona ${input.id}.`);
    if (saved === 'name-taken') {
      throw new AppError('CONFLICT', `A persona named "${input.name}" exists already.`, {
        hint: 'Choose another name, or edit the persona that has this one.',
      });
    }
    caller.logger.info({ accountId: input.accountId, personaId: saved.id }, 'persona saved');
    return saved;
  },
);
