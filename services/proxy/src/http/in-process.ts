/**
 * The proxy's second entry (kit's InProcessEntry, docs/adr/0069): in the embedded stack the
 * gateway hands `/api/v1/services/*` to it by a function call instead of an HTTP request to the
 * proxy's listener, with the caller it has already verified. What that skips is the hop itself:
 * a second HTTP parse and write, the gateway's proof (there is no request on the network to
 * sign) and a second introspection of the same token. The steps after authentication are the very
 * ones the HTTP entry runs (app.ts), so both decide, call and answer alike.
 *
 * The caller arrives as an object in memory, never as headers (docs/adr/0067): nothing outside
 * this process can produce one. Its account must be an account id, as after introspection here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '@pag/contracts';
import type { Handover, InProcessEntry } from '@pag/kit';
import { bearerChallenge } from '@pag/kit';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { proxyIdentity } from './introspector.ts';
import { state } from './state.ts';

/** Wraps the app whose first step is takeCaller: each request handed over with its caller. */
export function inProcessEntry(app: Express, handovers: WeakMap<IncomingMessage, Handover>): InProcessEntry {
  return (req: IncomingMessage, res: ServerResponse, handover: Handover, next: (error?: unknown) => void) => {
    handovers.set(req, handover);
    // The gateway's steps keep their state on res.locals as the proxy's do, under the same names
    // (route, identity) with other shapes. The proxy starts on a fresh one (express keeps a
    // locals object it finds: application.js' handle); the gateway's steps hold their own object.
    (res as Response).locals = Object.create(null);
    // An express app called as a handler makes them its own request and response (it sets their
    // prototypes: application.js' handle), as for a request its own server received.
    app(req as Request, res as Response, next);
  };
}

/**
 * The first step of the in-process app: the gateway's caller becomes this request's identity, and
 * its report function where the facts of the call go (report-call.ts).
 */
export function takeCaller(handovers: WeakMap<IncomingMessage, Handover>, publicUrl: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const handover = handovers.get(req);
    if (handover === undefined)
      return next(new Error('a request reached the in-process entry without a caller'));
    const { caller } = handover;
    const current = state(res);
    current.report = handover.report;
    current.requestId = caller.requestId;
    current.startedAt = caller.startedAt;
    current.clientAddress = caller.clientAddress;
    const identity = proxyIdentity(caller);
    if (identity === null) {
      // As authenticate refuses such a token at the proxy's HTTP entry.
      const message = 'The token acts for no owner account.';
      return next(
        new AppError('INVALID_TOKEN', message, {
          headers: {
            'www-authenticate': bearerChallenge(publicUrl, {
              error: 'invalid_token',
              path: req.path,
              description: message,
            }),
          },
        }),
      );
    }
    current.identity = identity;
    next();
  };
}
