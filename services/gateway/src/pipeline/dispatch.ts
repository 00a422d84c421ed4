/**
 * Step 6: hand the request to whoever answers the route. Gateway routes run here; routes of
 * services reached over NATS (brain, trigger, auth, audit: every route with a subject) become a
 * request/reply with a timeout (504; the route's timeoutMs, else DISPATCH_TIMEOUT_MS) whose absence
 * of any responder is a 503 naming the service. A stream route asked with `Accept:
 * text/event-stream` answers server-sent events instead (event-stream.ts).
 * Routes of services reached over HTTP (the proxy) are streamed to it by their forwarder; without
 * one (no PROXY_URL) they answer 503 naming the service: never a made-up result. A 503 for a
 * service the live directory does not list as running says "not running" and carries a Retry-After
 * of NOT_RUNNING_RETRY_AFTER_SECONDS (docs/adr/0062); one merely restarting keeps the catalogue's 1 s. The caller's
 * identity and the request id travel in headers (identity-headers.ts). Of the client's own
 * headers, a service receives only those its route names (forwardHeaders, in the message's
 * `headers`); a polled route's success answer carries Retry-After (pollIntervalSeconds).
 */

import type { AnyEndpoint, DispatchRequest, RouteDefinition } from '@pag/contracts';
import { AppError, endpointOf, PRESENCE_INTERVAL_MS, PRESENCE_MISSED_BEATS } from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import { BusNoRespondersError, BusTimeoutError, relayEndpoint } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { notRunning as notRunningReason } from '../domain/availability.ts';
import { streamEvents, wantsEventStream } from './event-stream.ts';
import { identityHeaders } from './identity-headers.ts';
import { state } from './state.ts';

export type LocalHandler = (req: Request, res: Response) => void | Promise<void>;

export interface DispatchOptions {
  bus: Bus;
  /** The services running now (live discovery): a 503 for one that is not says so, with a longer Retry-After. */
  directory?: { isRunning(service: string): boolean };
  /** DISPATCH_TIMEOUT_MS: for a route without a timeoutMs of its own. */
  timeoutMs: number;
  /** Where a streamed answer's failure after its first event is logged (nobody else sees it). */
  logger?: Logger;
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
        if (forward === undefined) throw notRunning(route.service, NOT_RUNNING_RETRY_AFTER_SECONDS);
        return forward(req, res, next);
      }
      const message: DispatchRequest = {
        params,
        query: queryOf(req),
        body: body ?? null,
        ...forwardedHeaders(req, route),
      };
      const headers = identityHeaders(state(res));
      const endpoint = endpointFor(route.subject);
      const timeoutMs = route.timeoutMs ?? options.timeoutMs;
      if (route.stream) {
        // The answer depends on Accept: caches must keep the JSON and the event stream apart.
        res.vary('Accept');
        if (wantsEventStream(req)) {
          const failure = (error: unknown) =>
            serviceFailure(error, route, endpoint.subject, timeoutMs, options.directory);
          const { bus, logger } = options;
          return await streamEvents(req, res, {
            bus,
            endpoint,
            message,
            headers,
            timeoutMs,
            failure,
            logger,
          });
        }
      }
      const reply = await requestService(options, route, endpoint, message, headers, timeoutMs);
      if (route.pollIntervalSeconds !== null) res.set('Retry-After', String(route.pollIntervalSeconds));
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
  timeoutMs: number,
): Promise<unknown> {
  try {
    // Relayed unread: the answering service owns the shape of the route's body.
    return await relayEndpoint(options.bus, endpoint, message, { timeoutMs, headers });
  } catch (error) {
    throw serviceFailure(error, route, endpoint.subject, timeoutMs, options.directory);
  }
}

/** A failure of the bus as the client sees it; the service's own AppErrors pass unchanged. */
function serviceFailure(
  error: unknown,
  route: RouteDefinition,
  subject: string,
  timeoutMs: number,
  directory: DispatchOptions['directory'],
): unknown {
  const { service } = route;
  // Only the bus's own "nothing answers": a service's SERVICE_UNAVAILABLE (e.g. a dependency of
  // its own is down) passes on as the service worded it.
  if (error instanceof BusNoRespondersError && error.subject === subject) {
    // No instance announced: it is not running (not restarting), and worth a longer wait.
    if (directory !== undefined && !directory.isRunning(service))
      return notRunning(service, NOT_RUNNING_RETRY_AFTER_SECONDS, error);
    return notAnswered(service, subject, error);
  }
  if (error instanceof BusTimeoutError && error.subject === subject) {
    // The route's wait, or a streamed reply's other ones (between events, in all), worded by the bus.
    const message =
      error.timeoutMs === timeoutMs
        ? `The ${service} service did not answer within ${timeoutMs} ms.`
        : `The ${service} service stopped answering: ${error.message}`;
    return new AppError('UPSTREAM_TIMEOUT', message, { cause: error, expose: true });
  }
  return error;
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

/**
 * How long a client should wait before asking a service that is not running again: about the
 * time a directory takes to notice an instance gone (three announcement intervals), where a
 * service merely restarting answers Retry-After 1 (the catalogue's).
 */
export const NOT_RUNNING_RETRY_AFTER_SECONDS = (PRESENCE_INTERVAL_MS * PRESENCE_MISSED_BEATS) / 1000;

function notRunning(service: string, retryAfterSeconds: number, cause?: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', notRunningReason(service), {
    cause,
    expose: true,
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/** The client headers the route names, those the request carries; nothing for a route naming none. */
function forwardedHeaders(req: Request, route: RouteDefinition): Pick<DispatchRequest, 'headers'> {
  const names = Object.keys(route.forwardHeaders);
  if (names.length === 0) return {};
  const headers: Record<string, string> = {};
  for (const name of names) {
    // A repeated header arrives joined with ", " (node's rule); the service judges the value.
    const value = req.get(name);
    if (value !== undefined) headers[name] = value;
  }
  return { headers };
}

/** The query string as name → value; a repeated name keeps its last value. */
function queryOf(req: Request): Record<string, string> {
  return Object.fromEntries(new URL(req.originalUrl, 'http://local').searchParams);
}
