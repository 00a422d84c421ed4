/**
 * The trigger service's answers on the bus (TriggerEndpoints and TriggerOwnerEndpoints), served by
 * kit's serveEndpoints.
 */
import type { AnyEndpoint } from '@pag/contracts';
import type { EndpointHandler } from '@pag/kit';
import {
  ownerTriggerDelete,
  ownerTriggerMemory,
  ownerTriggerPause,
  ownerTriggerResume,
  ownerTriggerRun,
  ownerTriggersList,
} from './handlers/owner-triggers.ts';
import type { TriggerHandlerDeps } from './handlers/trigger-deps.ts';
import { triggerDelete, triggerPause, triggerResume, triggersRun } from './handlers/triggers-act.ts';
import { triggersCreate } from './handlers/triggers-create.ts';
import { runsList, triggerGet, triggersList } from './handlers/triggers-read.ts';

export const triggerEndpoints: readonly EndpointHandler<AnyEndpoint, TriggerHandlerDeps>[] = [
  triggersCreate,
  triggersList,
  triggerGet,
  triggersRun,
  runsList,
  triggerPause,
  triggerResume,
  triggerDelete,
  // The owner's side (TriggerOwnerEndpoints: the auth service's dashboard asks).
  ownerTriggersList,
  ownerTriggerPause,
  ownerTriggerResume,
  ownerTriggerDelete,
  ownerTriggerRun,
  ownerTriggerMemory,
];
