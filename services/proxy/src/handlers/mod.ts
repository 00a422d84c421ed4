/**
 * The proxy's answers on the bus (ProxySubjects), in the queue group `proxy` so replicas share
 * them. The proxied calls themselves come over HTTP (src/http). serveBusApi resolves once every
 * subscription is registered.
 */
import { QueueGroups } from '@pag/contracts';
import type { Bus, Subscription } from '@pag/kit';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import type { VaultStore } from '../store/vault-store.ts';
import { serveConnectorsList } from './connectors-list.ts';
import { serveServicesList } from './services-list.ts';
import { serveVaultTokensList } from './vault-tokens-list.ts';

export interface BusApiDeps {
  bus: Bus;
  store: VaultStore;
  connectors: ReadonlyMap<string, ConnectorDefinition>;
}

export const QUEUE = { queue: QueueGroups.proxy };

export async function serveBusApi(deps: BusApiDeps): Promise<Subscription[]> {
  const subscriptions: Subscription[] = [];
  try {
    for (const serve of [serveServicesList, serveVaultTokensList, serveConnectorsList]) {
      subscriptions.push(await serve(deps));
    }
    return subscriptions;
  } catch (error) {
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    throw error;
  }
}
