/**
 * What the resource-server steps learn about a request, kept on `res.locals` under one typed
 * shape. A service adds its own fields by extending it (the gateway's usage windows, the proxy's
 * connector), and reads both through one cast.
 */
import type { RouteDefinition, TokenKind } from '@pag/contracts';
import type { Response } from 'express';

/** What every resource server knows of an accepted token (the authenticate step sets it). */
export interface BearerIdentity {
  readonly accountId: string;
  readonly scopes: readonly string[];
  /** How the token came to be, when the server reads it (refusals' hints name the remedy for it). */
  readonly tokenKind?: TokenKind;
}

export interface ResourceState<I extends BearerIdentity = BearerIdentity> {
  requestId: string;
  startedAt: bigint;
  /**
   * The client's address, read once as the request arrives (express's req.ip: the socket's, or
   * what the proxies named in the app's `trust proxy` setting say).
   */
  clientAddress: string;
  /** The route of the contracts' table the request matched. */
  route?: RouteDefinition;
  /** Its path parameters, decoded by the contracts' matcher. */
  params?: Record<string, string>;
  /** Who the bearer token acts for, once introspection accepted it. */
  identity?: I;
}

export function resourceState<S extends ResourceState = ResourceState>(res: Response): S {
  return res.locals as S;
}
