/** What the proxy's bus handlers need, built once by service.ts. */
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import type { VaultStore } from '../store/vault-store.ts';

export interface ProxyHandlerDeps {
  store: VaultStore;
  connectors: ReadonlyMap<string, ConnectorDefinition>;
}
