/**
 * Builds the OpenAPI 3.1 document served at /openapi.json from the route table and the zod
 * schemas, so the document cannot drift from what the gateway enforces. Every URL comes from
 * the serverUrl argument (PUBLIC_URL), never from a request.
 */

import { z } from 'zod';
import { AGENT_CONDUCT_RULE, API_PREFIX } from '../api.ts';
import { documentedScope } from '../routes/match-route.ts';
import { compilePath } from '../routes/route-path.ts';
import { RouteTable } from '../routes/route-table.ts';
import type { RouteDefinition, RouteService } from '../routes/route-types.ts';
import { ScopeCatalogue } from '../scopes/scope-catalogue.ts';
import {
  componentSchemas,
  errorResponse,
  type JsonObject,
  RATE_LIMIT_HEADERS,
  schemaRef,
} from './components.ts';
import { oauthOperation } from './oauth-operation.ts';
import { OAuthOperations } from './oauth-operations.ts';
import { codesByStatus, routeErrorCodes } from './route-errors.ts';

export interface OpenApiOptions {
  /** The public base URL, without a trailing slash (PUBLIC_URL). */
  readonly serverUrl: string;
  /** Version of the interface, dotted numbers (the discovery index's `version`). */
  readonly version: string;
}

const TAGS: Record<RouteService | 'oauth', string> = {
  gateway: 'Discovery, guides, token capabilities and the context.',
  auth: 'Access without a token: handshakes, device registration, OAuth discovery.',
  brain: 'Memory, knowledge base, chat, personas and identity.',
  proxy: 'Connected services, the proxy to them, vault tokens and connectors.',
  trigger: 'Scheduled automations.',
  audit: 'The audit log.',
  oauth:
    "The authorization server (oidc-provider): authorization, token, registration, revocation, introspection, keys, sign-out and the discovery documents. Errors are OAuth's own body, {error, error_description}.",
};

/** The OAuth scope name from the catalogue that the route's scope template instantiates. */
function oauthScope(scope: string): string {
  return scope.replaceAll(':{resource}', '').replaceAll('{service}', '{name}');
}

/** One requirement per catalogue scope that can satisfy the route (read or write when `{access}` is open). */
function oauthRequirements(scope: string | null): JsonObject[] {
  if (scope === null) return [{ oauth2: [] }];
  if (!scope.includes('{access}')) return [{ oauth2: [oauthScope(scope)] }];
  return ['read', 'write'].map((access) => ({ oauth2: [oauthScope(scope.replaceAll('{access}', access))] }));
}

/** A stream route's second success content type (route-types.ts, `stream`). */
const EVENT_STREAM = {
  'text/event-stream': {
    schema: {
      type: 'string',
      description:
        "Server-sent events, when the request's Accept includes text/event-stream: each event as the service sends it (`event: <name>`, `data: <JSON>`), then `event: done` whose data is the JSON body above, or `event: error` whose data is the error body. A failure before the first event is the usual JSON error answer with its status.",
    },
  },
};

function successContent(route: RouteDefinition): JsonObject {
  if (route.response !== null) {
    const json = { [route.contentType]: { schema: schemaRef(route.response) } };
    return route.stream ? { ...json, ...EVENT_STREAM } : json;
  }
  if (route.contentType === 'application/json') {
    return { [route.contentType]: { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } };
  }
  if (route.contentType === '*/*')
    return { '*/*': { schema: { description: "The connected service's response." } } };
  return { [route.contentType]: { schema: { type: 'string' } } };
}

function parameters(route: RouteDefinition): JsonObject[] {
  const compiled = compilePath(route.pattern);
  const named = compiled.paramNames.map((name) => ({
    name,
    in: 'path',
    required: true,
    description: name === 'service' ? 'Name of the connected service.' : `The ${name}.`,
    schema: {
      type: 'string',
      ...(route.paramPatterns[name] ? { pattern: route.paramPatterns[name].source } : {}),
    },
  }));
  const query = [...queryParameters(route), ...headerParameters(route)];
  if (compiled.wildcard === null) return [...named, ...query];
  const rest = {
    name: compiled.wildcard,
    in: 'path',
    required: true,
    description:
      'The rest of the path, forwarded as is: unlike other parameters it may contain slashes (path separators, forwarded as such) and be empty. Its first segment names the resource for sub-scopes.',
    schema: { type: 'string' },
  };
  return [...named, rest, ...query];
}

/** The request headers the route receives (forwardHeaders), each optional. */
function headerParameters(route: RouteDefinition): JsonObject[] {
  return Object.entries(route.forwardHeaders).map(([name, description]) => ({
    name: name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase()),
    in: 'header',
    required: false,
    description,
    schema: { type: 'string' },
  }));
}

/** A poll's success answer says when to ask again; a counted request, what is left of the limits. */
function successHeaders(route: RouteDefinition): JsonObject {
  const headers: JsonObject = {};
  if (route.pollIntervalSeconds !== null) {
    headers['Retry-After'] = {
      description: 'Seconds to wait before polling again.',
      schema: { type: 'integer', minimum: 1, examples: [route.pollIntervalSeconds] },
    };
  }
  if (route.auth === 'bearer' && route.countsUsage) Object.assign(headers, RATE_LIMIT_HEADERS);
  return Object.keys(headers).length === 0 ? {} : { headers };
}

/** The route's query parameters, each with the JSON Schema and description of its property. */
function queryParameters(route: RouteDefinition): JsonObject[] {
  if (route.query === null) return [];
  const schema = z.toJSONSchema(route.query, { target: 'draft-2020-12', io: 'input' }) as JsonObject & {
    properties?: Record<string, JsonObject>;
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: 'query',
      required: schema.required?.includes(name) ?? false,
      ...(description === undefined ? {} : { description }),
      schema: rest,
    };
  });
}

function describe(route: RouteDefinition, scope: string | null): string {
  const access =
    route.auth === 'none'
      ? 'No authentication.'
      : scope === null
        ? 'Requires a Bearer token; no particular scope.'
        : `Requires a Bearer token with the scope \`${scope}\` (or a scope that contains it).`;
  const plan = route.plan === null ? '' : ` Plan: ${route.plan.join(' or ')}.`;
  return `${route.description}\n\n${access}${plan}`;
}

function operation(route: RouteDefinition): JsonObject {
  const scope = documentedScope(route);
  const params = parameters(route);
  // A forwarded third-party answer keeps the connected service's own success status.
  const forwarded = route.contentType === '*/*';
  const responses: JsonObject = {
    [forwarded ? '2XX' : String(route.successStatus)]: {
      description: route.summary,
      ...successHeaders(route),
      content: successContent(route),
    },
  };
  if (route.acceptedWithoutBody) {
    responses['202'] = {
      description: 'Accepted: the message carried nothing to answer (notifications, responses).',
    };
  }
  const pathParams = params.filter((param) => param.in === 'path').length;
  for (const [status, codes] of codesByStatus(routeErrorCodes(route, pathParams))) {
    responses[String(status)] = errorResponse(status, codes);
  }
  if (forwarded) {
    responses.default = {
      description:
        "The connected service's own refusal, status and body as it sent them (a status listed above is the gateway's or the proxy's, with the error body).",
      content: successContent(route),
    };
  }
  return {
    operationId: route.id,
    summary: route.summary,
    description: describe(route, scope),
    tags: [route.service],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(route.requestBody === null
      ? {}
      : {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: schemaRef(route.requestBody) } },
          },
        }),
    responses,
    security: route.auth === 'none' ? [] : [{ bearerAuth: [] }, ...oauthRequirements(scope)],
    'x-required-scope': scope,
    'x-service': route.service,
    ...(route.plan === null ? {} : { 'x-plan': route.plan }),
  };
}

/** The top level of the generated document; deeper parts are plain JSON. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, JsonObject>;
  components: {
    schemas: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
  };
}

export function buildOpenApiDocument({ serverUrl, version }: OpenApiOptions): OpenApiDocument {
  const paths: Record<string, JsonObject> = {};
  for (const route of RouteTable) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  for (const op of OAuthOperations) paths[op.path] = { ...paths[op.path], [op.method]: oauthOperation(op) };
  const services = [...new Set(RouteTable.map((route) => route.service))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Personal API Gateway',
      version,
      description: [
        `IMPORTANT: ${AGENT_CONDUCT_RULE}`,
        `Use ${serverUrl} exactly as given; do not follow redirects (they drop the Authorization header); every API path already begins with ${API_PREFIX}, so never append it to the base URL.`,
        'Without a usable token, POST /api/v1/handshakes (with a codeChallenge) and poll GET /api/v1/handshakes/{handshakeId}/status; once approved, the poll with the header Handshake-Verifier answers your token once.',
        "Paths are templates: `{name}` is one path segment; `{path}` in /api/v1/services/{service}/{path} is the rest of the path and may hold slashes. Each operation lists every status it can answer; an error's `code` is one of those listed for its status. The owner's sign-in, consent and dashboard pages (HTML for a browser) are not described here.",
      ].join('\n\n'),
    },
    servers: [{ url: serverUrl }],
    tags: [...services, 'oauth' as const].map((name) => ({ name, description: TAGS[name] })),
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description: "A resource server's client id and secret (introspection only).",
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <ACCESS_TOKEN>: a dashboard token, a token shared after a handshake, or an OAuth access token.',
        },
        oauth2: {
          type: 'oauth2',
          description: 'Authorization code flow with PKCE (S256).',
          flows: {
            authorizationCode: {
              authorizationUrl: `${serverUrl}/oauth/authorize`,
              tokenUrl: `${serverUrl}/oauth/token`,
              refreshUrl: `${serverUrl}/oauth/token`,
              scopes: Object.fromEntries(
                Object.entries(ScopeCatalogue).map(([scope, { description }]) => [scope, description]),
              ),
            },
          },
        },
      },
    },
  };
}
