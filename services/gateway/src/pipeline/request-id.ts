/**
 * Step 1 of the pipeline: every request gets an id. A caller's X-Request-Id is kept when it is a
 * short token of safe characters (so ids can be correlated end to end), otherwise replaced. The
 * client's address is read here too, before any step touches the forwarding headers.
 */
import { requestIdFor } from '@pag/contracts';
import type { NextFunction, Request, Response } from 'express';
import { state } from './state.ts';

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const id = requestIdFor(req.get('x-request-id'));
  state(res).requestId = id;
  state(res).startedAt = process.hrtime.bigint();
  // express's req.ip: the socket's address, or what the proxies named in TRUST_PROXY say (app.ts).
  state(res).clientAddress = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  res.setHeader('x-request-id', id);
  next();
}
