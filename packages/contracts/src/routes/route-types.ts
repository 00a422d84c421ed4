/**
 * The shape of one entry of the route table. The table is the single source for the gateway's
 * dispatch, the discovery index, the capabilities listings and the OpenAPI document.
 */
import type { z } from 'zod';
import type { ErrorCode } from '../errors.ts';
import type { Plan } from '../schemas/auth.ts';
import { toOpenApiPath } from './route-path.ts';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Which service answers a route (the gateway dispatches to it over HTTP or NATS). */
export const ROUTE_SERVICES = ['gateway', 'auth', 'brain', 'proxy', 'trigger', 'audit'] as const;
export type RouteService = (typeof ROUTE_SERVICES)[number];

export interface RouteDefinition {
  /** Short camelCase name: the discovery index key and the OpenAPI operationId. */
  readonly id: string;
  readonly method: HttpMethod;
  /**
   * The path as every document and message shows it, in OpenAPI's one notation:
   * `/api/v1/handshakes/{handshakeId}/status`, `/api/v1/services/{service}/{path}` (a final
   * parameter named by `pattern`'s `*name` is the rest of the path and may hold slashes).
   */
  readonly path: string;
  /**
   * The same path in the matcher's notation (route-path.ts compiles it; never shown): `:name` is
   * one decoded segment, a final `*name` is the rest of the path (possibly empty, possibly with
   * slashes, kept percent-encoded because it is forwarded as is).
   */
  readonly pattern: string;
  readonly summary: string;
  readonly description: string;
  readonly auth: 'none' | 'bearer';
  /**
   * null: no scope beyond a valid token (or none at all when auth is 'none'). Otherwise a scope
   * or a template: `{param}` is a path parameter, `{access}` is read or write as `access` says,
   * `{resource}` is the first segment of the `path` wildcard when it is a valid resource name; an
   * absent `{resource}` drops together with its leading colon.
   */
  readonly scope: string | null;
  /**
   * How `{access}` is decided: 'method' (read for GET and HEAD, write otherwise) or 'connector'
   * (the connector named by the `service` parameter classifies the call: connectors/connector-access.ts).
   */
  readonly access: 'method' | 'connector';
  readonly service: RouteService;
  /** Plans allowed to call it; null: every plan. */
  readonly plan: readonly Plan[] | null;
  readonly requestBody: z.ZodType | null;
  /**
   * The query parameters the route reads (an object schema whose properties are optional
   * strings or coerced numbers); null: it reads none. The endpoint validates the same schema.
   */
  readonly query: z.ZodObject | null;
  /** Schema of the success body; null when the body is not ours (proxied) or not JSON. */
  readonly response: z.ZodType | null;
  readonly successStatus: 200 | 201 | 202;
  /**
   * Whether a request may also be answered 202 without a body: a POST that carries nothing to
   * answer (MCP notifications and responses).
   */
  readonly acceptedWithoutBody: boolean;
  /** Media type of the success body. */
  readonly contentType: string;
  /** NATS request subject when the gateway dispatches over NATS; null for local or HTTP-forwarded. */
  readonly subject: string | null;
  /**
   * Whether the answer may stream: asked with `Accept: text/event-stream`, the gateway asks the
   * service for a streamed reply and answers server-sent events (each event as it comes, the
   * reply as `event: done`, a failure as `event: error`); without that header, JSON as usual.
   * Only for a route with a subject.
   */
  readonly stream: boolean;
  /**
   * How long the gateway waits for the service's reply (a streamed reply: for its first event);
   * null: the gateway's DISPATCH_TIMEOUT_MS.
   */
  readonly timeoutMs: number | null;
  /**
   * The answering service calls a third party for this route (a connected service, a language-model
   * provider): its failure is 502 UPSTREAM_ERROR, its silence 504 UPSTREAM_TIMEOUT (OpenAPI lists both).
   */
  readonly upstream: boolean;
  /** Whether the discovery index lists it (false for aliases). */
  readonly listed: boolean;
  /** Extra constraint on a decoded path parameter, beyond "one safe segment". */
  readonly paramPatterns: Readonly<Record<string, RegExp>>;
  /**
   * The client request headers the answering service receives (DispatchRequest.headers), by
   * lower-case name, each with what it carries (OpenAPI documents it). No other client header
   * ever leaves the gateway. Only for a route with a subject.
   */
  readonly forwardHeaders: Readonly<Record<string, string>>;
  /**
   * A route polled until something happens (a handshake's status): its 2xx answers carry
   * Retry-After with this many seconds; null: not a poll.
   */
  readonly pollIntervalSeconds: number | null;
  /**
   * Whether a request counts against the agent's daily and monthly usage. False only for the MCP
   * endpoint: each tool call is counted as the API request it makes, not twice.
   */
  readonly countsUsage: boolean;
  /**
   * The scopes a 401 challenge asks for (RFC 6750 `scope`) on a route that needs none beyond a
   * valid token, so that a client does not ask for every scope the server supports; null: the
   * route's own scope, if any.
   */
  readonly challengeScopes: readonly string[] | null;
  /**
   * The codes the answering service itself may refuse this route with (NOT_FOUND, CONFLICT,
   * SERVICE_NOT_CONNECTED…), beyond those the pipeline answers for every route of its kind
   * (openapi/route-errors.ts derives those from the fields above). The OpenAPI document lists
   * both under their statuses; the contract test fails on an answer whose code is not listed.
   */
  readonly errors: readonly ErrorCode[];
}

/** `path` is written in the matcher's notation (`:name`, `*name`); defineRoute derives the shown one. */
type RouteInput = Pick<RouteDefinition, 'id' | 'method' | 'path' | 'summary' | 'service'> &
  Partial<Omit<RouteDefinition, 'pattern'>>;

/** Fills the defaults: Bearer auth, no scope, JSON body, 200, listed, no NATS subject, no stream. */
export function defineRoute(input: RouteInput): RouteDefinition {
  return {
    description: input.summary,
    auth: 'bearer',
    scope: null,
    access: 'method',
    plan: null,
    requestBody: null,
    query: null,
    response: null,
    successStatus: 200,
    acceptedWithoutBody: false,
    contentType: 'application/json',
    subject: null,
    stream: false,
    timeoutMs: null,
    upstream: false,
    listed: true,
    paramPatterns: {},
    forwardHeaders: {},
    pollIntervalSeconds: null,
    countsUsage: true,
    challengeScopes: null,
    errors: [],
    ...input,
    path: toOpenApiPath(input.path),
    pattern: input.path,
  };
}
