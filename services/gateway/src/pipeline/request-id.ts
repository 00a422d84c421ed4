/**
 * Step 1 of the pipeline: every request gets an id. A caller's X-Request-Id is kept when it is a
 * short token of safe characters (so ids can be correlated end to end), otherwise replaced.
 */
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { state } from './state.ts';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const id = incoming !== undefined && SAFE_ID.test(incoming) ? incoming : randomUUID();
  state(res).requestId = id;
  state(res).startedAt = process.hrtime.bigint();
  res.setHeader('x-request-id', id);
  next();
}
