/**
 * Who is calling, as the gateway learnt it, in the headers that travel with a dispatched request
 * (NATS message headers and the HTTP headers of forwarded requests alike): the request id, the
 * client's address (the socket's, or what the proxies trusted by TRUST_PROXY said), and the introspection result of an authenticated call
 * (account, OAuth client, scopes, token kind, agent). Services behind the gateway read them for
 * correlation and tenancy; resource services still introspect the token themselves.
 */
import { MessageHeaders } from '@pag/contracts';
import type { PipelineState } from './state.ts';

/** The header names the gateway alone may set on what it dispatches. */
export const IDENTITY_HEADER_NAMES: ReadonlySet<string> = new Set(Object.values(MessageHeaders));

export function identityHeaders(pipeline: PipelineState): Record<string, string> {
  const { requestId, clientAddress, identity } = pipeline;
  const headers: Record<string, string> = {
    [MessageHeaders.requestId]: requestId,
    [MessageHeaders.clientAddress]: clientAddress,
  };
  if (identity !== undefined) {
    headers[MessageHeaders.accountId] = identity.accountId;
    headers[MessageHeaders.clientId] = identity.clientId;
    headers[MessageHeaders.scopes] = identity.scopes.join(' ');
    headers[MessageHeaders.tokenKind] = identity.tokenKind;
    if (identity.agent !== null) headers[MessageHeaders.agentId] = identity.agent.id;
  }
  return headers;
}
