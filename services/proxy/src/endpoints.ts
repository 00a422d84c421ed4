/**
 * The proxy's answers on the bus (ProxyEndpoints), one handler file each, served by kit's
 * serveEndpoints. Agents' calls come over HTTP (src/http); the brain's calls for trigger runs
 * over proxy.calls.forward, decided and made by the same core (src/calls).
 */
import type { AnyEndpoint } from '@pag/contracts';
import type { EndpointHandler } from '@pag/kit';
import { callForward } from './handlers/call-forward.ts';
import { connectorsList, ownerConnectorsList } from './handlers/connectors-list.ts';
import { connectFinish, connectionRemove, connectKey, connectStart } from './handlers/owner-connect.ts';
import { clientRemove, clientSet, customRemove, customSet, settingsGet } from './handlers/owner-settings.ts';
import type { ProxyHandlerDeps } from './handlers/proxy-deps.ts';
import { servicesList } from './handlers/services-list.ts';
import { vaultTokensList } from './handlers/vault-tokens-list.ts';

export const proxyEndpoints: readonly EndpointHandler<AnyEndpoint, ProxyHandlerDeps>[] = [
  servicesList,
  vaultTokensList,
  connectorsList,
  callForward,
  ownerConnectorsList,
  connectStart,
  connectFinish,
  connectKey,
  connectionRemove,
  settingsGet,
  clientSet,
  clientRemove,
  customSet,
  customRemove,
];
