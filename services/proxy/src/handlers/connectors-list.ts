/**
 * proxy.connectors.list (GET /api/v1/connectors): every connector of the catalogue, with whether
 * the caller's account has it connected (status connected) right now, and what read access allows
 * on it (the contracts' connector-access table, which also decides the scope of each call).
 */
import { ConnectorAccessTable, ProxyEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { ProxyHandlerDeps } from './proxy-deps.ts';

export const connectorsList = handle(
  ProxyEndpoints.connectorsList,
  async (caller, _input, { store, connectors }: ProxyHandlerDeps) => {
    const connected = await store.connectedServiceNames(caller.accountId);
    return {
      connectors: [...connectors.values()].map((connector) => ({
        name: connector.name,
        displayName: connector.displayName,
        authType: connector.authType,
        connected: connected.has(connector.name),
        resources: [...connector.resources],
        readAccess: ConnectorAccessTable[connector.name].readAccess,
      })),
    };
  },
);
