/**
 * Step 6: hand the request to whoever answers the route. Gateway routes run here; routes of
 * services reached over NATS (brain, trigger, auth, audit: every route with a subject) become a
 * request/reply with a timeout (504) whose absence of any responder is a 503 naming the service.
 * Routes of services reached over HTTP (the proxy) are streamed to it by their forwarder; without
 * one (no PROXY_URL) they answer 503 naming the service: never a made-up result. The caller's
 * identity and the request id travel in headers (identity-headers.ts).
 */

import type { AnyEndpoint, DispatchRequest, RouteDefinition } from '@pag/contracts';
import { AppError, endpointOf } from '@pag/contracts';
import type { Bus } from '@pag/kit';
import { BusNoRespondersError, relayEndpoint } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { identityHeaders } from './identity-headers.ts';
import { state } from './state.ts';

export type LocalHandler = (req: Request, res: Response) => void | Promise<void>;

export interface DispatchOptions {
  bus: Bus;
  timeoutMs: number;
  /** The gateway's own handlers by route id. */
  local: ReadonlyMap<string, LocalHandler>;
  /** Forwarders of the services reached over HTTP, by service name (the proxy when configured). */
  forward?: ReadonlyMap<string, RequestHandler>;
}

export function dispatch(options: DispatchOptions): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const { route, params = {}, body } = state(res);
    if (route === undefined) return next(new AppError('ROUTE_NOT_FOUND', `No endpoint at ${req.path}.`));
    try {
      const handler = options.local.get(route.id);
      if (handler !== undefined) return await handler(req, res);
      if (route.subject === null) {
        const forward = options.forward?.get(route.service);
        if (forward === undefined) throw notRunning(route.service);
        return forward(req, res, next);
      }
      const message: DispatchRequest = { params, query: queryOf(req), body: body ?? null };
      const headers = identityHeaders(state(res));
      const reply = await requestService(options, route, endpointFor(route.subject), message, headers);
      res.status(route.successStatus).json(reply);
    } catch (error) {
      next(error);
    }
  };
}

/** The reply is the route's response body; a service's failure arrives as an AppError. */
async function requestService(
  options: DispatchOptions,
  route: RouteDefinition,
  endpoint: AnyEndpoint,
  message: DispatchRequest,
  headers: Record<string, string>,
): Promise<unknown> {
  const { service } = route;
  const { subject } = endpoint;
  try {
    // Relayed unread: the answering service owns the shape of the route's body.
    return await relayEndpoint(options.bus, endpoint, message, { timeoutMs: options.timeoutMs, headers });
  } catch (error) {
    // Only the bus's own "nothing answers": a service's SERVICE_UNAVAILABLE (e.g. a dependency of
    // its own is down) passes on as the service worded it.
    if (error instanceof BusNoRespondersError && error.subject === subject)
      throw notAnswered(service, subject, error);
    if (error instanceof AppError && error.code === 'UPSTREAM_TIMEOUT') {
      throw new AppError(
        'UPSTREAM_TIMEOUT',
        `The ${service} service did not answer within ${options.timeoutMs} ms.`,
        {
          cause: error,
          expose: true,
        },
      );
    }
    throw error;
  }
}

/** The route table takes its subjects from the endpoint list; a subject without one is a bug. */
function endpointFor(subject: string): AnyEndpoint {
  const endpoint = endpointOf(subject);
  if (endpoint === undefined) throw new AppError('INTERNAL_ERROR', `No endpoint declares ${subject}.`);
  return endpoint;
}

/** Nothing answers the subject: the service is down, or its running version does not serve it. */
function notAnswered(service: string, subject: string, cause: unknown): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    `No ${service} service answers ${subject}: it is not running, or it does not serve this endpoint yet.`,
    { cause, expose: true },
  );
}

function notRunning(service: string, cause?: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', `The ${service} service is not running.`, {
    cause,
    expose: true,
  });
}

/** The query string as name → value; a repeated name keeps its last value. */
function queryOf(req: Request): Record<string, string> {
  return Object.fromEntries(new URL(req.originalUrl, 'http://local').searchParams);
}
