/**
 * The public documents an agent reads before it has a token: the discovery index, the
 * quick-start guide and the public capabilities. Built from the route table and PUBLIC_URL (never
 * from the Host header), so they cannot drift from what the gateway routes, and, where they list
 * endpoints, from the services running now (domain/availability.ts).
 */

import type { DiscoveryIndex, PublicCapabilities, QuickStart } from '@pag/contracts';
import {
  AGENT_CONDUCT_RULE,
  API_PREFIX,
  CREDENTIAL_TYPES,
  discoveryEndpoints,
  IDENTITY_TYPES,
  REGISTRATION_METHODS,
  RouteTable,
  ScopeCatalogue,
} from '@pag/contracts';
import { availabilityOf } from './availability.ts';

export const GATEWAY_NAME = 'Personal API Gateway';

const DESCRIPTION =
  "A personal API gateway: the owner's identity, personas, long-term memory, knowledge base and connected services, " +
  'reachable by AI agents with a bearer token, within the scopes the owner granted and per-agent usage limits. ' +
  'Every request is recorded in an immutable audit log.';

const NO_TOKEN_HINT =
  `No token, or a rejected one? POST ${API_PREFIX}/handshakes with {agentId, requestedScopes, message, codeChallenge, codeChallengeMethod: "S256"}, ` +
  `poll GET ${API_PREFIX}/handshakes/{handshakeId}/status every interval seconds until it reads "approved", then collect your token ` +
  'with the header Handshake-Verifier: <verifier> (without a codeChallenge, the owner shares the token with you).';

export const URL_WARNING = (baseUrl: string) =>
  `Use ${baseUrl} exactly as given for every call. Do not follow HTTP redirects: they strip the Authorization header. ` +
  `Do not append ${API_PREFIX} to the base URL: every path already starts with it, and ${API_PREFIX}${API_PREFIX}/… answers ROUTE_NOT_FOUND.`;

/** The kinds of limits a request can meet; the numbers are per agent or per deployment. */
const LIMIT_KINDS = [
  {
    kind: 'daily',
    description:
      'Requests per agent per calendar day (UTC), set by the owner per agent; over it: 429 USAGE_LIMIT_EXCEEDED with Retry-After.',
  },
  {
    kind: 'monthly',
    description:
      'Requests per agent per calendar month (UTC), set by the owner per agent; over it: 429 USAGE_LIMIT_EXCEEDED with Retry-After.',
  },
  {
    kind: 'payload',
    description: 'Largest request body, per deployment; over it: 413 PAYLOAD_TOO_LARGE.',
  },
  {
    kind: 'plan',
    description:
      'Some features need a plan: creating triggers needs Pro or Heavy; otherwise 403 PLAN_REQUIRED.',
  },
];

/** The index, each endpoint with whether its service is among the `running` ones now. */
export function discoveryIndex(version: string, running: ReadonlySet<string>): DiscoveryIndex {
  const endpoints = discoveryEndpoints((route) => availabilityOf(route, running));
  return {
    name: GATEWAY_NAME,
    version,
    important: AGENT_CONDUCT_RULE,
    description: DESCRIPTION,
    documentation: { openapi: '/openapi.json', quickStart: `${API_PREFIX}/quick-start`, llms: '/llms.txt' },
    authentication: { type: 'Bearer', header: 'Authorization: Bearer <ACCESS_TOKEN>', hint: NO_TOKEN_HINT },
    endpoints,
  };
}

export function quickStart(baseUrl: string): QuickStart {
  return {
    title: `${GATEWAY_NAME}: quick start for AI agents`,
    important: AGENT_CONDUCT_RULE,
    authenticated: false,
    canonicalBaseUrl: baseUrl,
    urlWarning: URL_WARNING(baseUrl),
    prerequisite:
      `A bearer token from the owner: made for you at ${baseUrl}/dashboard/tokens, obtained with OAuth 2.1 ` +
      `(authorization code with PKCE S256; discovery at ${baseUrl}/.well-known/oauth-authorization-server), ` +
      'or from an approved handshake (collected by you with your verifier, or shared by the owner).',
    noTokenFlow: {
      summary: NO_TOKEN_HINT,
      steps: [
        'Make a proof: a random code verifier you keep secret (43 to 128 characters of A-Z a-z 0-9 - . _ ~; e.g. VERIFIER=$(openssl rand -hex 32)) ' +
          "and its challenge BASE64URL(SHA-256(verifier)) without padding (CHALLENGE=$(printf %s \"$VERIFIER\" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')).",
        `POST ${API_PREFIX}/handshakes without a token, body {"agentId": "<your stable id>", "requestedScopes": ["read"], "message": "<who you are and why>", "codeChallenge": "<challenge>", "codeChallengeMethod": "S256"}; keep the handshakeId and show your human the claimUrl.`,
        `GET ${API_PREFIX}/handshakes/{handshakeId}/status with the header Handshake-Verifier: <verifier>, every interval seconds (the answer's interval and Retry-After), until status is "approved" or "denied".`,
        'The first approved answer carries your token (token.accessToken, with its scopes, limits and expiresAt), never a later one: store it and send it as Authorization: Bearer <token>.',
        'Without codeChallenge the owner is shown the token instead and shares it with you; the status never carries it.',
      ],
    },
    steps: [
      {
        title: 'Describe, then wait',
        detail: AGENT_CONDUCT_RULE,
      },
      {
        title: 'Load your context',
        request: `GET ${API_PREFIX}/gateway/context`,
        detail:
          'Your persona (soul_content), the identity of the user you serve, long-term memory, connected services and the endpoints your token may call.',
      },
      {
        title: 'Check what your token allows',
        request: `GET ${API_PREFIX}/tokens/me/capabilities`,
        detail:
          'The scopes your token grants and, once known, your usage against your daily and monthly limits.',
      },
      {
        title: 'Remember what matters',
        request: `POST ${API_PREFIX}/memory`,
        detail:
          'Body {"content": "<markdown>"}; the note appears in your context from then on (the context carries the newest notes and memoryCount, the number of all). DELETE /api/v1/memory/{id} removes a note you wrote.',
      },
      {
        title: "Search the owner's knowledge",
        request: `GET ${API_PREFIX}/brain/knowledge-base?q={words}`,
        detail:
          'Needs the knowledge scope. Full-text search: the best matches first, each with its rank and the matching passage; without q, every document, newest first, a page at a time (nextCursor).',
      },
      {
        title: "Ask the owner's brain",
        request: `POST ${API_PREFIX}/brain/chat`,
        detail:
          'Needs the chat scope. Body {"message": "<text>"}; send the reply\'s conversationId with the next message to continue. The reply names its model and the knowledge and memory ids it drew on; with Accept: text/event-stream it streams. Without a language model configured, the offline brain quotes the owner\'s own data instead of writing an answer.',
      },
      {
        title: 'Call a connected service',
        request: `GET ${API_PREFIX}/services/{service}/{path}`,
        detail:
          "The rest of the path is forwarded to the connected service with the owner's stored credentials.",
      },
      {
        title: 'Respect the limits',
        detail:
          'A 429 or 503 answer carries Retry-After: wait that long. A 401 says why your token no longer works ' +
          '(MALFORMED_TOKEN, TOKEN_EXPIRED, TOKEN_REVOKED, INVALID_TOKEN) and its hint names the remedy for your kind of token. ' +
          'Your capabilities and context mark endpoints whose service is not running with available: false and the reason.',
      },
    ],
    fullDocs: '/openapi.json',
  };
}

/** The public capabilities, each feature with whether its service is among the `running` ones now. */
export function publicCapabilities(version: string, running: ReadonlySet<string>): PublicCapabilities {
  return {
    name: GATEWAY_NAME,
    version,
    features: RouteTable.filter((route) => route.listed && route.path.startsWith(API_PREFIX)).map(
      (route) => ({
        id: route.id,
        summary: route.summary,
        endpoint: `${route.method} ${route.path}`,
        ...availabilityOf(route, running),
      }),
    ),
    scopes: Object.entries(ScopeCatalogue).map(([scope, entry]) => ({
      scope,
      description: entry.description,
    })),
    registrationMethods: [...REGISTRATION_METHODS],
    identityTypes: [...IDENTITY_TYPES],
    credentialTypes: [...CREDENTIAL_TYPES],
    limits: LIMIT_KINDS,
  };
}
