/**
 * What the steps learn about a request, kept on `res.locals` under one typed shape.
 */
import type { Response } from 'express';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';

export interface RequestState {
  requestId: string;
  startedAt: bigint;
  /** The route's id in the contracts' table (proxyGet, proxyPost…), for metrics. */
  routeId?: string;
  /** The connector named in the path, once it exists in the catalogue. */
  serviceName?: string;
  /** The rest of the path after /api/v1/services/:service/, still percent-encoded. */
  restOfPath?: string;
  /** The scope the request needs (services:{name}[:{resource}]:read|write). */
  requiredScope?: string;
  /** The caller's account, from introspection (never from headers). */
  accountId?: string;
  /** The token's scopes, from introspection. */
  scopes?: string[];
  connector?: ConnectorDefinition;
  /** The vault token used, and its decrypted value (sent to the connector's host only). */
  credential?: { tokenId: string; value: string };
}

export function state(res: Response): RequestState {
  return res.locals as RequestState;
}
