/**
 * The first step: every request gets an id. A caller's X-Request-Id is kept when it is a short
 * token of safe characters (so ids can be correlated end to end), otherwise replaced. The clock
 * of the request's duration starts here, and the client's address is read before any later step
 * touches the forwarding headers.
 */
import { requestIdFor } from '@pag/contracts';
import type { NextFunction, Request, Response } from 'express';
import { resourceState } from './state.ts';

export function requestId(req: Request, res: Response, next: NextFunction): void {
  const id = requestIdFor(req.get('x-request-id'));
  const state = resourceState(res);
  state.requestId = id;
  state.startedAt = process.hrtime.bigint();
  // express's req.ip parses X-Forwarded-For into a new list on every read; when the app trusts
  // no proxy its answer is the socket's address, read here directly.
  const address = req.app.get('trust proxy') === false ? req.socket.remoteAddress : req.ip;
  state.clientAddress = address ?? 'unknown';
  res.setHeader('x-request-id', id);
  next();
}
