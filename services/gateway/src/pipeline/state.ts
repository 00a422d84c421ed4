/**
 * What the pipeline steps learn about a request, kept on `res.locals` under one typed shape.
 */
import type { RouteDefinition } from '@pag/contracts';
import type { Response } from 'express';
import type { UsageCounts, UsageWindows } from '../domain/usage-windows.ts';
import type { TokenIdentity } from './authenticate.ts';

export interface PipelineState {
  requestId: string;
  startedAt: bigint;
  /**
   * The client's address, read once as the request arrives (behind TRUST_PROXY, from the proxies'
   * X-Forwarded-For, which later steps remove before forwarding).
   */
  clientAddress: string;
  route?: RouteDefinition;
  params?: Record<string, string>;
  /** The request body after validation against the route's schema. */
  body?: unknown;
  identity?: TokenIdentity;
  /**
   * The windows of an authenticated request and, for an agent with limits, its requests in them,
   * this one included (null: no limits, so counted without waiting for the numbers).
   */
  usage?: { windows: UsageWindows; counts: UsageCounts | null };
  /** The service a request was forwarded to as is (no route of the table applies). */
  forwardedTo?: 'auth';
}

export function state(res: Response): PipelineState {
  return res.locals as PipelineState;
}
