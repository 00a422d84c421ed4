/**
 * The proxy's second entry (kit's InProcessEntry, docs/adr/0069): in the embedded stack the
 * gateway hands `/api/v1/services/*` to it by a function call instead of an HTTP request to the
 * proxy's listener, with the caller it has already verified and the route it matched. What that
 * skips is the hop itself: a second HTTP parse and write, the gateway's proof (there is no request
 * on the network to sign), a second introspection of the same token and a second route match.
 * The steps after authentication are the very functions the HTTP entry's app runs (app.ts), called
 * in order by kit's runSteps without an express app of their own (docs/adr/0074), so both decide,
 * call and answer alike.
 *
 * The caller arrives as an object in memory, never as headers (docs/adr/0067): nothing outside
 * this process can produce one. Its account must be an account id, as after introspection here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteDefinition } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import type { Handover, InProcessEntry, StepRunner } from '@pag/kit';
import { bearerChallenge } from '@pag/kit';
import type { Request, Response } from 'express';
import { proxyIdentity } from './introspector.ts';
import type { RequestState } from './state.ts';

export interface InProcessOptions {
  /** The steps after authentication and the error step (app.ts), as kit's runSteps runs them. */
  run: StepRunner;
  /** The routes the proxy serves: another route handed over is unknown here, as at the listener. */
  serves: (route: RouteDefinition) => boolean;
  publicUrl: string;
}

export function inProcessEntry(options: InProcessOptions): InProcessEntry {
  return (req: IncomingMessage, res: ServerResponse, handover: Handover, next: (error?: unknown) => void) => {
    // The gateway's steps keep their state on res.locals as the proxy's do, under the same names
    // (route, identity) with other shapes. The proxy starts on a fresh one; the gateway's steps
    // hold their own object. The request and the response are the gateway's express ones.
    const current: RequestState = Object.create(null);
    (res as Response).locals = current;
    const refusal = takeCaller(current, handover, req as Request, options);
    options.run(req as Request, res as Response, next, refusal);
  };
}

/**
 * What the HTTP entry's first steps learn (request id, route, identity), from the handover: the
 * gateway's caller becomes this request's identity, its route this request's route, and its
 * report function where the facts of the call go (report-call.ts). A refusal when the account is
 * not one (as authenticate refuses at the HTTP entry) or the route is not the proxy's.
 */
function takeCaller(
  current: RequestState,
  handover: Handover,
  req: Request,
  options: InProcessOptions,
): AppError | undefined {
  const { caller, route, params } = handover;
  current.report = handover.report;
  current.requestId = caller.requestId;
  current.startedAt = caller.startedAt;
  current.clientAddress = caller.clientAddress;
  if (!options.serves(route)) {
    // As the HTTP entry's route lookup answers a route of the table it does not serve.
    return new AppError('ROUTE_NOT_FOUND', `No endpoint at ${req.method} ${req.path}.`);
  }
  current.route = route;
  current.params = params;
  const identity = proxyIdentity(caller);
  if (identity === null) {
    const message = 'The token acts for no owner account.';
    return new AppError('INVALID_TOKEN', message, {
      headers: {
        'www-authenticate': bearerChallenge(options.publicUrl, {
          error: 'invalid_token',
          path: req.path,
          description: message,
        }),
      },
    });
  }
  current.identity = identity;
  return undefined;
}
