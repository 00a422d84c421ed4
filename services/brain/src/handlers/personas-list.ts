/**
 * brain.personas.list (GET /api/v1/personas): the owner's personas, the one applying to the
 * calling agent marked `active` (its own, else the default, else none).
 */
import type { PersonaList } from '@pag/contracts';
import type { BusMessage } from '@pag/kit';
import { readCaller, requireRouteScope } from './caller.ts';
import type { BrainApiDeps } from './mod.ts';

export function personasList({ stores }: BrainApiDeps) {
  return async (msg: BusMessage<unknown>): Promise<PersonaList> => {
    const caller = readCaller(msg);
    requireRouteScope(caller, 'listPersonas');
    return { personas: await stores.personas.list(caller.accountId, caller.agentId) };
  };
}
