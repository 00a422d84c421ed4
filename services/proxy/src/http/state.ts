/**
 * What the steps learn about a request, kept on `res.locals` under one typed shape: the kit's
 * resource-server state (request id, route and its parameters `service` and `path`, identity) and
 * the proxy's own.
 */
import type { ProxiedCall } from '@pag/contracts';
import type { ResourceState } from '@pag/kit';
import type { Response } from 'express';
import type { Credential } from '../calls/connection.ts';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';

/** The caller, from introspection (never from headers): its owner account and its token's scopes. */
export interface ProxyIdentity {
  accountId: string;
  scopes: string[];
  /** The token's OAuth client, and the agent it belongs to when introspection names one. */
  clientId: string;
  agentId: string | null;
}

export interface RequestState extends ResourceState<ProxyIdentity> {
  /** The connector named in the path, once it exists in the catalogue. */
  connector?: ConnectorDefinition;
  /** The vault token used, and its decrypted value (sent to the connector's host only). */
  credential?: Credential;
  /** Where the facts of the call go for the gateway's audit row (report-call.ts). */
  report?: (call: ProxiedCall) => void;
}

export function state(res: Response): RequestState {
  return res.locals as RequestState;
}
