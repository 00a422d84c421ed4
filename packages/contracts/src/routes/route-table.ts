/**
 * THE route table: every endpoint of the spec's endpoint table, once. The gateway dispatches
 * from it, the discovery index and capabilities list it, the OpenAPI document is built from it.
 *
 * Decisions where the spec is silent (rows "listed in discovery index" without an auth column):
 * - capabilities is public: it describes the gateway, not the owner's data.
 * - personas, identity, connectors need a Bearer token and no scope (the context already shows
 *   persona and identity to any valid token).
 * - vault tokens need `services:read`: metadata only, never a secret, but it reveals which
 *   services hold credentials.
 * - The services proxy takes GET and POST/PUT/PATCH/DELETE; its scope is the service's, narrowed
 *   to the resource named by the first segment of the forwarded path. Every method but GET writes;
 *   whether a GET reads is the connector's call (Slack's chat.postMessage by GET writes).
 * - Device registration is POST {publicKey, deviceName} without a token; the owner claims and
 *   approves the device afterwards.
 * - Memory write and the trigger endpoints need a valid token and no scope, as the spec says.
 * - `/api/v1` and `/api/v1/` are both the index; the alias is not listed in the index itself.
 */
import { API_PREFIX } from '../api.ts';
import {
  AuthEndpoints,
  BrainEndpoints,
  ProxyEndpoints,
  TriggerEndpoints,
} from '../endpoints/endpoint-list.ts';
import {
  DeviceRegistered,
  DeviceRegisterRequest,
  HANDSHAKE_POLL_INTERVAL_SECONDS,
  HANDSHAKE_VERIFIER_HEADER,
  HandshakeCreated,
  HandshakeCreateRequest,
  HandshakeStatus,
  TokenCapabilities,
} from '../schemas/auth.ts';
import {
  CHAT_ROUTE_TIMEOUT_MS,
  ChatReply,
  ChatRequest,
  Conversation,
  GatewayContext,
  Identity,
  KnowledgeBase,
  KnowledgeQuery,
  MemoryDeleted,
  MemoryEntry,
  MemoryWriteRequest,
  PersonaList,
} from '../schemas/brain.ts';
import { Deleted } from '../schemas/brain-owner.ts';
import { DiscoveryIndex, OAuthServerMetadata, PublicCapabilities, QuickStart } from '../schemas/discovery.ts';
import { MCP_CHALLENGE_SCOPES, McpReply, McpRequest } from '../schemas/mcp.ts';
import { ConnectorList, ServiceList, VaultTokenList } from '../schemas/proxy.ts';
import {
  Trigger,
  TriggerCreateRequest,
  TriggerList,
  TriggerRun,
  TriggerRunPage,
  TriggerRunsQuery,
} from '../schemas/trigger.ts';
import { SCOPE_NAME_PATTERN } from '../scopes/scope-grammar.ts';
import { MCP_PATH } from './protected-resources.ts';
import { type HttpMethod, type RouteDefinition, defineRoute as r } from './route-types.ts';

const P = API_PREFIX;
const TEXT = 'text/plain; charset=utf-8';
const MARKDOWN = 'text/markdown; charset=utf-8';

/** One template for every proxy method; {access} is decided by the connector (connector-access.ts). */
export const PROXY_SCOPE = 'services:{service}:{resource}:{access}';
export const PROXY_PATH = `${P}/services/:service/*path`;

const PROXY_ACCESS: Record<HttpMethod, string> = {
  GET: '{access} is read or write as the connector classifies the call: read for REST APIs; for Slack, whose methods all take GET, read only for its listed read methods (conversations.list, users.info…) and write for any other (chat.postMessage, chat.delete…). GET /api/v1/connectors says, per connector, what read allows. A GET with a body is refused (400 BODY_NOT_ALLOWED).',
  POST: 'Always a write.',
  PUT: 'Always a write.',
  PATCH: 'Always a write.',
  DELETE: 'Always a write.',
};
const NO_OVERRIDE =
  'A method override in the query (_method and the like) is refused (400 METHOD_OVERRIDE_REFUSED); override headers are never forwarded.';

const MCP_DESCRIPTION = `The gateway's functions as MCP tools (Streamable HTTP, stateless: POST one JSON-RPC message or a batch, each answered as JSON; GET is 405, there is no server-initiated stream). Every tool call is the API request it mirrors, made with the same token through the same pipeline (scope, plan, usage limits, audit: one event per tool call), and its refusals come back as tool errors with the same code and hint. A call that needs a scope the token lacks is answered 403 with an insufficient_scope challenge naming it (step-up). Requests to this endpoint are not counted as usage; their tool calls are. The protected-resource metadata is at /.well-known/oauth-protected-resource${MCP_PATH}.`;

/** The MCP endpoint, at /mcp and at the base URL itself (what an MCP client given only that posts to). */
function mcp(id: string, path: string, listed: boolean): RouteDefinition {
  return r({
    id,
    method: 'POST',
    path,
    service: 'gateway',
    summary: listed
      ? 'MCP endpoint: the gateway as MCP tools'
      : 'MCP endpoint at the base URL (same as /mcp)',
    description: MCP_DESCRIPTION,
    requestBody: McpRequest,
    response: McpReply,
    acceptedWithoutBody: true,
    countsUsage: false,
    challengeScopes: MCP_CHALLENGE_SCOPES,
    listed,
  });
}

function proxy(method: HttpMethod, id: string): RouteDefinition {
  const access = method === 'GET' ? '{access}' : 'write';
  return r({
    id,
    method,
    path: PROXY_PATH,
    service: 'proxy',
    summary: `${method} on a connected service, with the owner's stored credentials`,
    description: `Forwards the rest of the path, the query and the body to the connected service {service} with the owner's stored credentials. ${PROXY_ACCESS[method]} ${NO_OVERRIDE} {resource} is the first segment of the forwarded path; services:{service}:${access} contains every such sub-scope and is what a path without a valid resource name needs.`,
    scope: PROXY_SCOPE,
    access: 'connector',
    contentType: '*/*',
    paramPatterns: { service: SCOPE_NAME_PATTERN },
    upstream: true,
    // The proxy's own refusals (services/proxy): not connected, a method override, a GET with a
    // body, an unknown connector, a body past its limit; the service's own rate limit, and an
    // answer past PROXY_MAX_RESPONSE_BYTES.
    errors: [
      'SERVICE_NOT_CONNECTED',
      'METHOD_OVERRIDE_REFUSED',
      'BODY_NOT_ALLOWED',
      'NOT_FOUND',
      'PAYLOAD_TOO_LARGE',
      'UPSTREAM_RATE_LIMITED',
      'UPSTREAM_RESPONSE_TOO_LARGE',
    ],
  });
}

export const RouteTable: readonly RouteDefinition[] = [
  r({
    id: 'discoveryIndex',
    method: 'GET',
    path: `${P}/`,
    service: 'gateway',
    auth: 'none',
    summary: 'Discovery index: what this gateway is and every endpoint',
    response: DiscoveryIndex,
  }),
  r({
    id: 'discoveryIndexAlias',
    method: 'GET',
    path: P,
    service: 'gateway',
    auth: 'none',
    summary: 'Discovery index (same as /api/v1/)',
    response: DiscoveryIndex,
    listed: false,
  }),
  r({
    id: 'discoveryIndexAtBase',
    method: 'GET',
    path: '/',
    service: 'gateway',
    auth: 'none',
    summary: 'Discovery index at the base URL (same as /api/v1/)',
    response: DiscoveryIndex,
    listed: false,
  }),
  mcp('mcp', MCP_PATH, true),
  mcp('mcpAtBase', '/', false),
  r({
    id: 'quickStart',
    method: 'GET',
    path: `${P}/quick-start`,
    service: 'gateway',
    auth: 'none',
    summary: 'Quick-start guide for agents',
    response: QuickStart,
  }),
  r({
    id: 'capabilities',
    method: 'GET',
    path: `${P}/capabilities`,
    service: 'gateway',
    auth: 'none',
    summary: 'What this gateway offers: features, scopes, registration methods',
    response: PublicCapabilities,
  }),
  r({
    id: 'tokenCapabilities',
    method: 'GET',
    path: `${P}/tokens/me/capabilities`,
    service: 'gateway',
    summary: 'The scopes and endpoints the calling token grants',
    response: TokenCapabilities,
  }),
  r({
    id: 'gatewayContext',
    method: 'GET',
    path: `${P}/gateway/context`,
    service: 'gateway',
    summary:
      'Everything to start with in one call: persona, identity, memory, services, endpoints; call this first',
    response: GatewayContext,
  }),
  r({
    id: 'writeMemory',
    method: 'POST',
    path: `${P}/memory`,
    service: 'brain',
    summary: 'Write a long-term memory note',
    requestBody: MemoryWriteRequest,
    response: MemoryEntry,
    successStatus: 201,
    subject: BrainEndpoints.memoryCreate.subject,
  }),
  r({
    id: 'deleteMemory',
    method: 'DELETE',
    path: `${P}/memory/:id`,
    service: 'brain',
    summary: 'Delete a memory entry you wrote',
    description:
      'Deletes one memory entry written by the calling agent (a token without an agent: one written without an agent). Needs a valid token and no scope, as writing memory does; an entry of another agent, even of the same owner, is 404.',
    response: MemoryDeleted,
    subject: BrainEndpoints.memoryDelete.subject,
    errors: ['NOT_FOUND'],
  }),
  r({
    id: 'knowledgeBase',
    method: 'GET',
    path: `${P}/brain/knowledge-base`,
    service: 'brain',
    scope: 'knowledge',
    summary: "Read or search the owner's knowledge base",
    description:
      "Read the owner's knowledge base, most recently updated first, a page at a time (?limit=, ?cursor= from nextCursor). With ?q= it is a PostgreSQL full-text search (English stemming; any of the words matches, documents with more and rarer matches rank first), each document with its rank and the best-matching passage; the same search the chat uses to find what to give the model.",
    query: KnowledgeQuery,
    response: KnowledgeBase,
    subject: BrainEndpoints.knowledgeList.subject,
  }),
  r({
    id: 'chat',
    method: 'POST',
    path: `${P}/brain/chat`,
    service: 'brain',
    scope: 'chat',
    summary: "Chat with the owner's AI brain",
    description:
      "Chat with the owner's AI brain. With `Accept: text/event-stream` the reply streams as server-sent events: `start` {conversationId, model}, `delta` {text} as the text comes, then `done` with the reply below (or `error` with the error body). A configured language-model provider that fails is 502 `UPSTREAM_ERROR`, one that does not answer in time 504 `UPSTREAM_TIMEOUT` (never an offline answer instead); without any provider the offline brain answers by quoting the owner's knowledge and memory, with their ids.",
    requestBody: ChatRequest,
    response: ChatReply,
    subject: BrainEndpoints.chatSend.subject,
    stream: true,
    timeoutMs: CHAT_ROUTE_TIMEOUT_MS,
    upstream: true,
    errors: ['NOT_FOUND'],
  }),
  r({
    id: 'getConversation',
    method: 'GET',
    path: `${P}/brain/conversations/:id`,
    service: 'brain',
    scope: 'chat',
    summary: 'A conversation with the brain, oldest message first',
    description:
      'The messages of a conversation the calling agent started with POST /api/v1/brain/chat. Another agent’s conversation, even of the same owner, is 404.',
    response: Conversation,
    subject: BrainEndpoints.conversationGet.subject,
    errors: ['NOT_FOUND'],
  }),
  r({
    id: 'listPersonas',
    method: 'GET',
    path: `${P}/personas`,
    service: 'brain',
    summary: 'List personas',
    response: PersonaList,
    subject: BrainEndpoints.personasList.subject,
  }),
  r({
    id: 'listServices',
    method: 'GET',
    path: `${P}/services`,
    service: 'proxy',
    summary: 'List connected services',
    response: ServiceList,
    subject: ProxyEndpoints.servicesList.subject,
  }),
  proxy('GET', 'proxyGet'),
  proxy('POST', 'proxyPost'),
  proxy('PUT', 'proxyPut'),
  proxy('PATCH', 'proxyPatch'),
  proxy('DELETE', 'proxyDelete'),
  r({
    id: 'identity',
    method: 'GET',
    path: `${P}/identity`,
    service: 'brain',
    summary: 'Identity of the owner',
    response: Identity,
    subject: BrainEndpoints.identityGet.subject,
  }),
  r({
    id: 'listVaultTokens',
    method: 'GET',
    path: `${P}/vault/tokens`,
    service: 'proxy',
    scope: 'services:read',
    summary: 'List vault tokens (metadata only, never a secret)',
    response: VaultTokenList,
    subject: ProxyEndpoints.vaultTokensList.subject,
  }),
  r({
    id: 'listConnectors',
    method: 'GET',
    path: `${P}/connectors`,
    service: 'proxy',
    summary: 'List connectors the owner can connect',
    response: ConnectorList,
    subject: ProxyEndpoints.connectorsList.subject,
  }),
  r({
    id: 'createTrigger',
    method: 'POST',
    path: `${P}/triggers`,
    service: 'trigger',
    plan: ['pro', 'heavy'],
    summary: 'Create a scheduled automation (Pro or Heavy plan)',
    description:
      'Creates a trigger that runs as the calling agent, with the calling token’s scopes and never more. Needs a Pro or Heavy plan (else 403 PLAN_REQUIRED), the `chat` scope (a run is a prompt to the brain) and, for each service in `action.services`, the read scope of that service (403 INSUFFICIENT_SCOPE naming it); a token without an agent cannot create one (403 AGENT_REQUIRED). Times are wall-clock times in `timezone`; see the schedule’s description for DST and month ends.',
    requestBody: TriggerCreateRequest,
    response: Trigger,
    successStatus: 201,
    subject: TriggerEndpoints.triggersCreate.subject,
    errors: ['AGENT_REQUIRED', 'INSUFFICIENT_SCOPE'],
  }),
  r({
    id: 'listTriggers',
    method: 'GET',
    path: `${P}/triggers`,
    service: 'trigger',
    summary: 'List the owner’s triggers with their next and last run',
    response: TriggerList,
    subject: TriggerEndpoints.triggersList.subject,
  }),
  r({
    id: 'getTrigger',
    method: 'GET',
    path: `${P}/triggers/:id`,
    service: 'trigger',
    summary: 'One trigger',
    response: Trigger,
    subject: TriggerEndpoints.triggerGet.subject,
    errors: ['NOT_FOUND'],
  }),
  r({
    id: 'runTrigger',
    method: 'POST',
    path: `${P}/triggers/:id/run`,
    service: 'trigger',
    summary: 'Run a trigger now',
    description:
      'Queues a run now, whatever the schedule (also for a paused trigger); it proceeds in the background. Only the creating agent, or a token with `full`, may run, pause, resume or delete a trigger (else 403 INSUFFICIENT_SCOPE).',
    response: TriggerRun,
    successStatus: 202,
    subject: TriggerEndpoints.triggersRun.subject,
    errors: ['NOT_FOUND', 'CONFLICT', 'INSUFFICIENT_SCOPE'],
  }),
  r({
    id: 'listTriggerRuns',
    method: 'GET',
    path: `${P}/triggers/:id/runs`,
    service: 'trigger',
    summary: 'A trigger’s run history, newest first',
    query: TriggerRunsQuery,
    response: TriggerRunPage,
    subject: TriggerEndpoints.runsList.subject,
    errors: ['NOT_FOUND'],
  }),
  r({
    id: 'pauseTrigger',
    method: 'POST',
    path: `${P}/triggers/:id/pause`,
    service: 'trigger',
    summary: 'Pause a trigger (creator or `full`)',
    response: Trigger,
    subject: TriggerEndpoints.triggerPause.subject,
    errors: ['NOT_FOUND', 'CONFLICT', 'INSUFFICIENT_SCOPE'],
  }),
  r({
    id: 'resumeTrigger',
    method: 'POST',
    path: `${P}/triggers/:id/resume`,
    service: 'trigger',
    summary: 'Resume a paused or stopped trigger (creator or `full`)',
    description:
      'Schedules the next run from now (missed times are not caught up). A stopped trigger resumes only when its creator is active again and holds the scopes it needs (else 403 naming the scope).',
    response: Trigger,
    subject: TriggerEndpoints.triggerResume.subject,
    errors: ['NOT_FOUND', 'CONFLICT', 'INSUFFICIENT_SCOPE'],
  }),
  r({
    id: 'deleteTrigger',
    method: 'DELETE',
    path: `${P}/triggers/:id`,
    service: 'trigger',
    summary: 'Delete a trigger and its run history (creator or `full`)',
    response: Deleted,
    subject: TriggerEndpoints.triggerDelete.subject,
    errors: ['NOT_FOUND', 'CONFLICT', 'INSUFFICIENT_SCOPE'],
  }),
  r({
    id: 'createHandshake',
    method: 'POST',
    path: `${P}/handshakes`,
    service: 'auth',
    auth: 'none',
    summary: 'Ask the owner for access when you have no usable token',
    requestBody: HandshakeCreateRequest,
    response: HandshakeCreated,
    successStatus: 201,
    subject: AuthEndpoints.handshakeCreate.subject,
    errors: ['RATE_LIMITED'],
  }),
  r({
    id: 'handshakeStatus',
    method: 'GET',
    path: `${P}/handshakes/:handshakeId/status`,
    service: 'auth',
    auth: 'none',
    summary: 'Poll a handshake until it is approved or denied; collect your token with your verifier',
    description:
      'Poll every `interval` seconds (also sent as Retry-After) until approved or denied. A handshake created with a codeChallenge: once approved, send the header Handshake-Verifier with your code verifier; the first such answer carries your token, never another. A verifier that does not match is 403 HANDSHAKE_PROOF_MISMATCH.',
    response: HandshakeStatus,
    subject: AuthEndpoints.handshakeStatus.subject,
    forwardHeaders: {
      [HANDSHAKE_VERIFIER_HEADER]:
        'Your code verifier (RFC 7636: 43 to 128 characters), whose S256 challenge you sent as codeChallenge; only to collect your token after approval.',
    },
    pollIntervalSeconds: HANDSHAKE_POLL_INTERVAL_SECONDS,
    // INVALID_REQUEST: a Handshake-Verifier that cannot be a code verifier.
    errors: ['NOT_FOUND', 'HANDSHAKE_PROOF_MISMATCH', 'INVALID_REQUEST'],
  }),
  r({
    id: 'registerDevice',
    method: 'POST',
    path: `${P}/agentic/asc/register`,
    service: 'auth',
    auth: 'none',
    summary: 'Register an Ed25519 device key; the owner approves it',
    requestBody: DeviceRegisterRequest,
    response: DeviceRegistered,
    successStatus: 201,
    subject: AuthEndpoints.deviceRegister.subject,
    errors: ['CONFLICT', 'RATE_LIMITED'],
  }),
  r({
    id: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    service: 'gateway',
    auth: 'none',
    summary: 'This OpenAPI document',
  }),
  r({
    id: 'llms',
    method: 'GET',
    path: '/llms.txt',
    service: 'gateway',
    auth: 'none',
    summary: 'Text guide for language models',
    contentType: TEXT,
  }),
  r({
    id: 'authGuide',
    method: 'GET',
    path: '/auth.md',
    service: 'auth',
    auth: 'none',
    summary: 'Authentication guide for agents',
    contentType: MARKDOWN,
  }),
  r({
    id: 'oauthMetadata',
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    service: 'auth',
    auth: 'none',
    summary: 'OAuth 2.0 discovery metadata with the agent_auth block',
    response: OAuthServerMetadata,
  }),
];

for (const route of RouteTable) {
  // A streamed answer is a bus reply: the gateway streams what the service sends.
  if (route.stream && route.subject === null) throw new Error(`route ${route.id} streams but has no subject`);
}

/** A route by id (operationId); an unknown id is a programming error. */
export function routeById(id: string): RouteDefinition {
  const found = RouteTable.find((route) => route.id === id);
  if (found === undefined) throw new Error(`No route with id ${id}`);
  return found;
}
