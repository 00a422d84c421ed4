/**
 * A bus endpoint, declared once: its subject, its one publisher and the service answering it in
 * its queue group, the schemas of the request and of the reply, and, for a route the gateway
 * dispatches from the route table, the route it carries. Serving (kit's serveEndpoints), asking
 * (kit's requestEndpoint), the subject table and the nats-server permissions all read these.
 *
 * Who the receiver learns the caller from (`caller`):
 * - 'service': another service asks for itself; the message is the request, no caller headers.
 * - 'anonymous': a route without a token (auth 'none'); the message is a DispatchRequest and the
 *   gateway's headers give the request id and the client's address.
 * - 'account': a bearer route; the gateway's `pag-*` headers (MessageHeaders) name the account
 *   (a UUID, required), the agent and the token's scopes, which the receiver re-checks against
 *   the route's scope.
 */
import { z } from 'zod';
import type { NatsUser } from '../bus-users.ts';

export type EndpointCaller = 'service' | 'anonymous' | 'account';
export type RouteCaller = Exclude<EndpointCaller, 'service'>;

export interface Endpoint<
  Req extends z.ZodType = z.ZodType,
  Rep extends z.ZodType = z.ZodType,
  C extends EndpointCaller = EndpointCaller,
  S extends string = string,
> {
  /** `<service>.<resource>.<verb>`. */
  readonly subject: S;
  /** The only user allowed to publish it. */
  readonly from: NatsUser;
  /** The user answering it, in the queue group of the same name. */
  readonly to: NatsUser;
  /** The message: for a route, the DispatchRequest with its typed params and body (dispatchRequest). */
  readonly request: Req;
  /** The reply: for a route, the route's response body. */
  readonly reply: Rep;
  /** The route (RouteTable id) whose caller the message carries; null between services. */
  readonly routeId: string | null;
  readonly caller: C;
}

/** Any endpoint, whatever its schemas. */
export type AnyEndpoint = Endpoint<z.ZodType, z.ZodType, EndpointCaller, string>;
/** What the sender passes (before the schema's transforms). */
export type EndpointInput<E extends AnyEndpoint> = z.input<E['request']>;
/** What the receiver's handler gets (after validation). */
export type EndpointRequest<E extends AnyEndpoint> = z.output<E['request']>;
/** What the handler answers and the sender receives, validated. */
export type EndpointReply<E extends AnyEndpoint> = z.output<E['reply']>;

interface EndpointDefinition<S extends string, Req extends z.ZodType, Rep extends z.ZodType> {
  subject: S;
  from: NatsUser;
  to: NatsUser;
  request: Req;
  reply: Rep;
}

interface RouteEndpointDefinition<
  S extends string,
  Req extends z.ZodType,
  Rep extends z.ZodType,
  C extends RouteCaller,
> extends EndpointDefinition<S, Req, Rep> {
  routeId: string;
  /** 'anonymous' for a route without a token (its auth is 'none'), else 'account'. */
  caller: C;
}

export function defineEndpoint<const S extends string, Req extends z.ZodType, Rep extends z.ZodType>(
  definition: EndpointDefinition<S, Req, Rep>,
): Endpoint<Req, Rep, 'service', S>;
export function defineEndpoint<
  const S extends string,
  Req extends z.ZodType,
  Rep extends z.ZodType,
  C extends RouteCaller,
>(definition: RouteEndpointDefinition<S, Req, Rep, C>): Endpoint<Req, Rep, C, S>;
export function defineEndpoint(
  definition: EndpointDefinition<string, z.ZodType, z.ZodType> & { routeId?: string; caller?: RouteCaller },
): AnyEndpoint {
  return { routeId: null, caller: 'service', ...definition };
}

const Params = z.record(z.string(), z.string()).describe('Decoded path parameters.');
const Query = z.record(z.string(), z.string());

const NoHeaders = z.record(z.string(), z.string()).optional();

/**
 * The message of a dispatched route (DispatchRequest) with the route's own params, query and body:
 * the body is null for a route without one, exactly what the gateway sends. A query schema is
 * strict where the route documents its parameters (an unknown one is a 400 naming it). `headers`:
 * the client headers the route receives (its forwardHeaders), each optional; absent for a route
 * that names none.
 */
export function dispatchRequest<
  Body extends z.ZodType = z.ZodNull,
  P extends z.ZodType<Record<string, string>> = typeof Params,
  Q extends z.ZodType<Record<string, unknown>> = typeof Query,
  H extends z.ZodType<Record<string, string | undefined> | undefined> = typeof NoHeaders,
>(parts: { body?: Body; params?: P; query?: Q; headers?: H } = {}) {
  return z.object({
    params: (parts.params ?? Params) as P,
    query: (parts.query ?? Query) as Q,
    body: (parts.body ?? z.null()) as Body,
    headers: (parts.headers ?? NoHeaders) as H,
  });
}

/** The subjects of a group of endpoints by name, e.g. `BrainSubjects.memoryCreate`. */
export function subjectsOf<const T extends Record<string, AnyEndpoint>>(
  endpoints: T,
): { readonly [K in keyof T]: T[K]['subject'] } {
  return Object.fromEntries(
    Object.entries(endpoints).map(([name, endpoint]) => [name, endpoint.subject]),
  ) as { readonly [K in keyof T]: T[K]['subject'] };
}
