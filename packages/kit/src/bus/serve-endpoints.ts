/**
 * The one way a service answers its bus endpoints (contracts' endpoint list). For each handler
 * it does what every service used to do by hand:
 * - subscribes in the queue group of the answering service, so replicas share the subject;
 * - reads the caller (endpoint-caller.ts): request id, client address, and for a bearer route the
 *   account (UUID, else 401), the agent and the scopes;
 * - re-checks the route's scope from the route table, so a sender that skipped the gateway gets
 *   403 all the same (before the message is judged: no schema hints without the scope);
 * - validates the whole message (for a route: the DispatchRequest with its params and body) into
 *   one 400 INVALID_REQUEST naming each field (contracts' invalidRequest);
 * - times each request into bus_request_duration_seconds{service,subject,code} (a streamed one
 *   once, from the request to its reply or failure);
 * - hands a bearer route's handler the request's ReplyStream (`caller.stream`) when the requester
 *   asked for a streamed reply (requestEndpointStream);
 * - hands the handler a logger whose lines carry the request id;
 * - if a subscription fails at start-up, closes the ones already made before failing.
 * A handler is `(caller, input, deps) => reply`, with no bus code in it.
 */
import type { AnyEndpoint, EndpointRequest, NatsUser } from '@pag/contracts';
import {
  AppError,
  DispatchRequest,
  insufficientScope,
  invalidRequest,
  missingScope,
  requiredScope,
  routeById,
} from '@pag/contracts';
import { Histogram } from 'prom-client';
import type { z } from 'zod';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import type { AccountCaller, CallerOf } from './endpoint-caller.ts';
import { readCaller } from './endpoint-caller.ts';
import type { Bus, RequestMessage, Subscription } from './types.ts';

/** One endpoint's answer: made by `handle`, served by `serveEndpoints`. */
export interface EndpointHandler<E extends AnyEndpoint = AnyEndpoint, D = unknown> {
  readonly endpoint: E;
  // Method syntax on purpose: a list of handlers of different endpoints is one array type.
  run(caller: CallerOf<E['caller']>, input: EndpointRequest<E>, deps: D): Promise<z.input<E['reply']>>;
}

/** The answer to one endpoint: the caller (read and checked), the validated input, the service's deps. */
export function handle<E extends AnyEndpoint, D>(
  endpoint: E,
  run: (
    caller: CallerOf<E['caller']>,
    input: EndpointRequest<E>,
    deps: D,
  ) => Promise<z.input<E['reply']>> | z.input<E['reply']>,
): EndpointHandler<E, D> {
  return { endpoint, run: async (caller, input, deps) => run(caller, input, deps) };
}

export interface ServeContext<D> {
  /** The answering service: every endpoint served must be answered by it (`to`). */
  service: NatsUser;
  deps: D;
  logger: Logger;
  metrics: Metrics;
}

const METRIC = 'bus_request_duration_seconds';
type Labels = 'service' | 'subject' | 'code';

/** One histogram per registry: the embedded stack and tests start several services on one. */
function requestDuration(metrics: Metrics): Histogram<Labels> {
  const existing = metrics.registry.getSingleMetric(METRIC);
  if (existing !== undefined) return existing as Histogram<Labels>;
  return new Histogram({
    name: METRIC,
    help: 'Duration of the bus requests a service answers, by service, subject and outcome (ok or the error code).',
    labelNames: ['service', 'subject', 'code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics.registry],
  });
}

/** Resolves once every subscription is registered; the subscriptions close with the service. */
export async function serveEndpoints<D>(
  bus: Bus,
  context: ServeContext<D>,
  handlers: readonly EndpointHandler<AnyEndpoint, D>[],
): Promise<Subscription[]> {
  for (const { endpoint } of handlers) {
    if (endpoint.to !== context.service)
      throw new Error(`${context.service} cannot serve ${endpoint.subject}: ${endpoint.to} answers it.`);
  }
  const histogram = requestDuration(context.metrics);
  const subscriptions: Subscription[] = [];
  try {
    for (const handler of handlers) {
      const answer = answerer(handler, context, histogram);
      // The queue group is named for the service (contracts' QueueGroups).
      subscriptions.push(await bus.handle(handler.endpoint.subject, answer, { queue: handler.endpoint.to }));
    }
  } catch (error) {
    await closeSubscriptions(subscriptions);
    throw error;
  }
  return subscriptions;
}

/** Stops answering: every service closes what serveEndpoints gave it this way on shutdown. */
export async function closeSubscriptions(subscriptions: readonly Subscription[]): Promise<void> {
  await Promise.all(subscriptions.map((subscription) => subscription.close()));
}

function answerer<D>(
  handler: EndpointHandler<AnyEndpoint, D>,
  context: ServeContext<D>,
  histogram: Histogram<Labels>,
): (msg: RequestMessage<unknown>) => Promise<unknown> {
  const { endpoint } = handler;
  const logger = context.logger.child({ subject: endpoint.subject });
  return async (msg) => {
    const stop = histogram.startTimer({ service: context.service, subject: endpoint.subject });
    try {
      const caller = readCaller(endpoint.caller, msg.headers, logger, msg.stream);
      const input = endpoint.request.safeParse(msg.data);
      if ('accountId' in caller) checkRouteScope(endpoint, caller, input.success ? input.data : msg.data);
      if (!input.success) throw invalidRequest(`${endpoint.subject} request`, input.error);
      const reply = await handler.run(caller as CallerOf<AnyEndpoint['caller']>, input.data, context.deps);
      stop({ code: 'ok' });
      return reply;
    } catch (error) {
      stop({ code: error instanceof AppError ? error.code : 'INTERNAL_ERROR' });
      throw error;
    }
  };
}

/**
 * 403 unless the caller's scopes grant what the route requires. The params of a scope template
 * come from the message's envelope even when its body fails validation, so the scope is judged
 * first; an envelope that is not a DispatchRequest is left to the 400.
 */
function checkRouteScope(endpoint: AnyEndpoint, caller: AccountCaller, message: unknown): void {
  if (endpoint.routeId === null) return;
  const envelope = DispatchRequest.safeParse(message);
  if (!envelope.success) return;
  const route = routeById(endpoint.routeId);
  const missing = missingScope(caller.scopes, requiredScope(route, envelope.data.params, route.method));
  if (missing !== null) throw insufficientScope(missing);
}
