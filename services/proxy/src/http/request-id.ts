/**
 * Every request gets an id: the gateway's X-Request-Id when it is a short token of safe
 * characters (so logs correlate end to end), otherwise a new one.
 */
import { requestIdFor } from '@pag/contracts';
import type { NextFunction, Request, Response } from 'express';
import { state } from './state.ts';

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const id = requestIdFor(req.get('x-request-id'));
  state(res).requestId = id;
  state(res).startedAt = process.hrtime.bigint();
  res.setHeader('x-request-id', id);
  next();
}
