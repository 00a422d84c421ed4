/**
 * proxy.services.list (GET /api/v1/services, and the services part of the gateway context): the
 * caller's connected services with their status. Any valid token may ask (route table). Kept in
 * memory per account until a change of its connections is announced (store/service-list-cache.ts).
 */
import { ProxyEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { ProxyHandlerDeps } from './proxy-deps.ts';

export const servicesList = handle(
  ProxyEndpoints.servicesList,
  async (caller, _input, { store, connectors, serviceLists }: ProxyHandlerDeps) => ({
    // The account's connectors: its own generic connectors are listed too (kept in memory). A
    // copy: the kept list is shared by every later answer, and the reply's type is mutable.
    services: [
      ...(await serviceLists.get(caller.accountId, async () =>
        store.listConnections(caller.accountId, await connectors.forAccount(caller.accountId)),
      )),
    ],
  }),
);
