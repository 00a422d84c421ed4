/**
 * What the pipeline steps learn about a request, kept on `res.locals` under one typed shape: the
 * kit's resource-server state (request id, client address, route, identity) and the gateway's own.
 */
import type { ProxiedCall } from '@pag/contracts';
import type { ResourceState } from '@pag/kit';
import type { Response } from 'express';
import type { UsageCounts, UsageWindows } from '../domain/usage-windows.ts';
import type { TokenIdentity } from './authenticate.ts';

export interface PipelineState extends ResourceState<TokenIdentity> {
  /** The request body after validation against the route's schema. */
  body?: unknown;
  /**
   * The windows of an authenticated request and, for an agent with limits, its requests in them,
   * this one included (null: no limits, so counted without waiting for the numbers).
   */
  usage?: { windows: UsageWindows; counts: UsageCounts | null };
  /** The service a request was forwarded to as is (no route of the table applies). */
  forwardedTo?: 'auth';
  /** What the proxy did with the call, for the request's audit event (audit.ts, docs/adr/0069). */
  proxiedCall?: ProxiedCall;
}

export function state(res: Response): PipelineState {
  return res.locals as PipelineState;
}
