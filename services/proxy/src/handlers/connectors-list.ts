/**
 * proxy.connectors.list (GET /api/v1/connectors) and proxy.owner-connectors.list (the dashboard's
 * /dashboard/services): the catalogue, each connector with the caller's owner's connection state
 * (not_connected, healthy, needs_reconnect) and whether it can be connected here now (an OAuth
 * connector needs a client: the owner's own or the deployment's, CONNECTOR_CLIENTS), with the
 * owner's own connectors (seen by that owner only; docs/adr/0068).
 */
import type { ConnectorList } from '@pag/contracts';
import { ProxyEndpoints, ProxyOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { ProxyHandlerDeps } from './proxy-deps.ts';

async function listing({ store, connectors }: ProxyHandlerDeps, accountId: string): Promise<ConnectorList> {
  const [health, visible] = await Promise.all([
    store.connectionHealth(accountId),
    connectors.forAccount(accountId),
  ]);
  return {
    connectors: [...visible.values()].map((connector) => ({
      name: connector.name,
      displayName: connector.displayName,
      authType: connector.authType,
      connected: health.get(connector.name) === 'healthy',
      resources: [...connector.resources],
      readAccess: connector.readAccess,
      connection: health.get(connector.name) ?? 'not_connected',
      canConnect: connector.authType === 'api_key' || connector.client !== null,
      authorizationOrigin: connector.oauth === null ? null : new URL(connector.oauth.authorizationUrl).origin,
      client: connector.clientSource,
      owned: connector.owned,
    })),
  };
}

export const connectorsList = handle(
  ProxyEndpoints.connectorsList,
  (caller, _input, deps: ProxyHandlerDeps) => listing(deps, caller.accountId),
);

export const ownerConnectorsList = handle(
  ProxyOwnerEndpoints.connectorsList,
  (_caller, input, deps: ProxyHandlerDeps) => listing(deps, input.accountId),
);
