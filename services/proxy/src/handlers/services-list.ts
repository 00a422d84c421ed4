/**
 * proxy.services.list (GET /api/v1/services, and the services part of the gateway context): the
 * caller's connected services with their status. Any valid token may ask (route table).
 */
import type { ServiceList } from '@pag/contracts';
import { ProxySubjects } from '@pag/contracts';
import type { BusMessage, Subscription } from '@pag/kit';
import { callerOf } from './caller.ts';
import type { BusApiDeps } from './mod.ts';
import { QUEUE } from './mod.ts';

export function serveServicesList({ bus, store }: BusApiDeps): Promise<Subscription> {
  return bus.handle(
    ProxySubjects.servicesList,
    async (msg: BusMessage<unknown>): Promise<ServiceList> => {
      const { accountId } = callerOf(msg);
      return { services: await store.listConnections(accountId) };
    },
    QUEUE,
  );
}
