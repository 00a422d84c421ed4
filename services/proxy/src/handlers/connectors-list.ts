/**
 * proxy.connectors.list (GET /api/v1/connectors): every connector of the catalogue, with whether
 * the caller's account has it connected (status connected) right now, and what read access allows
 * on it (the contracts' connector-access table, which also decides the scope of each call).
 */
import type { ConnectorList } from '@pag/contracts';
import { ConnectorAccessTable, ProxySubjects } from '@pag/contracts';
import type { BusMessage, Subscription } from '@pag/kit';
import { callerOf } from './caller.ts';
import type { BusApiDeps } from './mod.ts';
import { QUEUE } from './mod.ts';

export function serveConnectorsList({ bus, store, connectors }: BusApiDeps): Promise<Subscription> {
  return bus.handle(
    ProxySubjects.connectorsList,
    async (msg: BusMessage<unknown>): Promise<ConnectorList> => {
      const { accountId } = callerOf(msg);
      const connected = await store.connectedServiceNames(accountId);
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
    QUEUE,
  );
}
