/**
 * The auth service's answers on the bus: the API routes the gateway dispatches to it
 * (AuthSubjects: handshakes, device registration) and what other services ask of it (accounts), each in the queue group of the service so
 * replicas share them. serveBusApi resolves once every subscription is registered.
 */
import { QueueGroups } from '@pag/contracts';
import type { Bus, Logger, Subscription } from '@pag/kit';
import type { AuthCore } from '../core.ts';
import { serveAccountApi } from './accounts-api.ts';
import { serveDeviceApi } from './devices-api.ts';
import { serveHandshakeApi } from './handshakes-api.ts';

export interface BusApiDeps {
  bus: Bus;
  core: AuthCore;
  logger: Logger;
}

export const QUEUE = { queue: QueueGroups.auth };

export async function serveBusApi(deps: BusApiDeps): Promise<Subscription[]> {
  return [
    ...(await serveHandshakeApi(deps)),
    ...(await serveDeviceApi(deps)),
    ...(await serveAccountApi(deps)),
  ];
}
