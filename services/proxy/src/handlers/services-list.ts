/**
 * proxy.services.list (GET /api/v1/services, and the services part of the gateway context): the
 * caller's connected services with their status. Any valid token may ask (route table).
 */
import { ProxyEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { ProxyHandlerDeps } from './proxy-deps.ts';

export const servicesList = handle(
  ProxyEndpoints.servicesList,
  async (caller, _input, { store, connectors }: ProxyHandlerDeps) => ({
    // The account's connectors: its own generic connectors are listed too (kept in memory).
    services: await store.listConnections(caller.accountId, await connectors.forAccount(caller.accountId)),
  }),
);
