/**
 * Whether a call through the proxy reads or writes, and which sub-scope resource it touches,
 * decided by the connector it goes to (the `access` of its definition in providers/). The gateway
 * (before it counts usage) and the proxy service (before it forwards) both ask here, so they need
 * the same scope.
 *
 * The rules, safest first:
 * - An operation the connector lists (`operations`: method and exact rest of path, where a `{id}`
 *   segment stands for one segment of letters, digits, `-` and `_`) has the access and resource
 *   it names (Google Calendar's POST freeBusy reads, resource freebusy; Notion's POST
 *   databases/{id}/query reads, resource databases).
 * - Otherwise only GET and HEAD can be reads. Every other method is a write.
 * - A REST connector (`style: 'rest'`): GET and HEAD are reads.
 * - An RPC connector (`style: 'rpc'`, e.g. Slack's Web API, which takes any method's arguments
 *   from a GET query): the rest of the path names the method, and only the methods listed in
 *   `readMethods`, matched exactly as sent, are reads; any other name is a write.
 * - A service that is not in the catalogue (a deployment's own, CONNECTOR_CUSTOM): GET and HEAD
 *   are reads, the override parameters are the common ones.
 *
 * `overrideParameters` are query parameters by which the connector's API (or one we cannot rule
 * out) lets a GET act as another method; the proxy refuses them (400). Headers of that kind are
 * never forwarded to any connector (the proxy's header policy).
 */
import { CONNECTOR_NAMES, type ConnectorName, PROVIDERS, providerNamed } from './catalogue.ts';
import type { ProviderDefinition } from './provider-definition.ts';
import { METHOD_OVERRIDES } from './provider-definition.ts';

export type { ConnectorName };
export { CONNECTOR_NAMES };

export type Access = 'read' | 'write';

export type ConnectorAccess = ProviderDefinition['access'];
export type RestConnectorAccess = Extract<ConnectorAccess, { style: 'rest' }>;
export type RpcConnectorAccess = Extract<ConnectorAccess, { style: 'rpc' }>;

/** Every catalogue connector's access rules, by name. */
export const ConnectorAccessTable = Object.fromEntries(
  PROVIDERS.map((provider) => [provider.name, provider.access]),
) as Record<ConnectorName, ConnectorAccess>;

export function connectorAccess(service: string): ConnectorAccess | undefined {
  return providerNamed(service)?.access;
}

/**
 * Whether the rest of a path, as sent (still percent-encoded), is the operation's path. `{id}` takes
 * one segment of an identifier's characters only: never empty, `.`, `..` or an encoded character.
 */
function pathIs(pattern: string, restOfPath: string): boolean {
  if (!pattern.includes('{id}')) return pattern === restOfPath;
  const wanted = pattern.split('/');
  const sent = restOfPath.split('/');
  return (
    wanted.length === sent.length &&
    wanted.every((segment, at) => {
      const actual = sent[at] ?? '';
      return segment === '{id}' ? /^[A-Za-z0-9_-]+$/.test(actual) : segment === actual;
    })
  );
}

function operationOf(service: string, method: string, restOfPath: string) {
  return connectorAccess(service)?.operations.find(
    (operation) => operation.method === method && pathIs(operation.path, restOfPath),
  );
}

/**
 * Whether a call reads or writes: `restOfPath` is the forwarded path after the service name,
 * still percent-encoded (as the proxy sends it), without the query.
 */
export function accessOf(service: string, method: string, restOfPath: string): Access {
  const operation = operationOf(service, method, restOfPath);
  if (operation !== undefined) return operation.access;
  if (method !== 'GET' && method !== 'HEAD') return 'write';
  const connector = connectorAccess(service);
  if (connector === undefined || connector.style === 'rest') return 'read';
  return connector.readMethods.includes(restOfPath) ? 'read' : 'write';
}

/**
 * The sub-scope resource a listed operation names (undefined: the first path segment decides,
 * null: the operation has none).
 */
export function operationResource(
  service: string,
  method: string,
  restOfPath: string,
): string | null | undefined {
  return operationOf(service, method, restOfPath)?.resource;
}

/** The first query parameter by which the call would override its method, or null. */
export function methodOverrideIn(service: string, query: string): string | null {
  const names = connectorAccess(service)?.overrideParameters ?? METHOD_OVERRIDES;
  if (names.length === 0 || query === '') return null;
  for (const name of new URLSearchParams(query).keys()) {
    if (names.includes(name.trim().toLowerCase())) return name;
  }
  return null;
}
