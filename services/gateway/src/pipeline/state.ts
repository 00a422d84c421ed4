/**
 * What the pipeline steps learn about a request, kept on `res.locals` under one typed shape.
 */
import type { RouteDefinition } from '@pag/contracts';
import type { Response } from 'express';
import type { TokenIdentity } from './authenticate.ts';

export interface PipelineState {
  requestId: string;
  startedAt: bigint;
  route?: RouteDefinition;
  params?: Record<string, string>;
  /** The request body after validation against the route's schema. */
  body?: unknown;
  identity?: TokenIdentity;
  /** The service a request was forwarded to as is (no route of the table applies). */
  forwardedTo?: 'auth';
}

export function state(res: Response): PipelineState {
  return res.locals as PipelineState;
}
