/**
 * The MCP tools: each is one API route of the route table, called with the tool's arguments as
 * its path parameters, query or body. A tool never does anything its route does not: the MCP
 * endpoint makes the route's request through the gateway's own pipeline (mcp-endpoint.ts).
 */
import type { HttpMethod } from '@pag/contracts';
import {
  AGENT_CONDUCT_RULE,
  API_PREFIX,
  ChatRequest,
  KnowledgeQuery,
  MemoryWriteRequest,
  routeById,
  SCOPE_NAME_PATTERN,
  TriggerCreateRequest,
} from '@pag/contracts';
import { z } from 'zod';

/** The request a tool call makes. */
export interface ToolRequest {
  method: HttpMethod;
  /** Path and query, percent-encoded. */
  url: string;
  body?: unknown;
}

export interface McpTool {
  name: string;
  title: string;
  description: string;
  /** The route it mirrors: its summary, scope and plan are the tool's. */
  routeId: string;
  inputSchema: z.ZodObject;
  /** Whether it changes something (MCP's readOnlyHint is the opposite). */
  writes: boolean;
  request(args: Record<string, unknown>): ToolRequest;
}

const NO_ARGUMENTS = z.object({}).strict();
const Id = z.string().min(1).max(200).describe('The id, as returned when it was made or listed.');
const ServicePath = z
  .string()
  .max(2000)
  .describe(
    'The path at the service’s API, after its base URL (e.g. "user/repos" for GitHub); its first segment is the resource the scope names.',
  );
const ServiceName = z
  .string()
  .regex(SCOPE_NAME_PATTERN)
  .describe('The connected service, as list_services names it.');

const segment = (value: unknown) => encodeURIComponent(String(value));

function withQuery(path: string, query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) search.set(name, String(value));
  }
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}

/**
 * A service call's URL: the forwarded path as given, without leading slashes (the proxy checks the
 * rest), and its query.
 */
function serviceUrl(args: Record<string, unknown>): string {
  const rest = String(args.path ?? '').replace(/^\/+/, '');
  const query = (args.query as Record<string, string> | undefined) ?? {};
  return withQuery(`${API_PREFIX}/services/${segment(args.service)}/${rest}`, query);
}

/** A tool's description: what its route does, the conduct rule, and what it needs. */
function describe(routeId: string, extra: string): string {
  const route = routeById(routeId);
  const scope = route.scope === null ? 'any valid token' : `scope ${route.scope}`;
  const plan = route.plan === null ? '' : ` and a ${route.plan.join(' or ')} plan`;
  return `${route.summary}. ${extra} Needs ${scope}${plan}. ${AGENT_CONDUCT_RULE}`
    .replace(/\s+/g, ' ')
    .trim();
}

function tool(
  definition: Omit<McpTool, 'description' | 'title'> & { extra?: string; title: string },
): McpTool {
  const { extra = '', ...rest } = definition;
  return { ...rest, description: describe(definition.routeId, extra) };
}

export const MCP_TOOLS: readonly McpTool[] = [
  tool({
    name: 'get_context',
    title: 'Load your context',
    routeId: 'gatewayContext',
    extra:
      'Call this first: persona (with soul_content), identity, the newest memory, connected services and the endpoints your token may call.',
    inputSchema: NO_ARGUMENTS,
    writes: false,
    request: () => ({ method: 'GET', url: `${API_PREFIX}/gateway/context` }),
  }),
  tool({
    name: 'get_capabilities',
    title: 'What your token may do',
    routeId: 'tokenCapabilities',
    inputSchema: NO_ARGUMENTS,
    writes: false,
    request: () => ({ method: 'GET', url: `${API_PREFIX}/tokens/me/capabilities` }),
  }),
  tool({
    name: 'write_memory',
    title: 'Write a memory note',
    routeId: 'writeMemory',
    inputSchema: MemoryWriteRequest,
    writes: true,
    request: (args) => ({ method: 'POST', url: `${API_PREFIX}/memory`, body: args }),
  }),
  tool({
    name: 'delete_memory',
    title: 'Delete a memory note you wrote',
    routeId: 'deleteMemory',
    inputSchema: z.object({ id: Id }).strict(),
    writes: true,
    request: (args) => ({ method: 'DELETE', url: `${API_PREFIX}/memory/${segment(args.id)}` }),
  }),
  tool({
    name: 'search_knowledge',
    title: 'Search the owner’s knowledge base',
    routeId: 'knowledgeBase',
    extra: 'Without q, the documents most recently updated first; page with cursor (nextCursor).',
    inputSchema: KnowledgeQuery,
    writes: false,
    request: (args) => ({ method: 'GET', url: withQuery(`${API_PREFIX}/brain/knowledge-base`, args) }),
  }),
  tool({
    name: 'list_personas',
    title: 'List the owner’s personas',
    routeId: 'listPersonas',
    inputSchema: NO_ARGUMENTS,
    writes: false,
    request: () => ({ method: 'GET', url: `${API_PREFIX}/personas` }),
  }),
  tool({
    name: 'get_identity',
    title: 'The owner’s identity',
    routeId: 'identity',
    inputSchema: NO_ARGUMENTS,
    writes: false,
    request: () => ({ method: 'GET', url: `${API_PREFIX}/identity` }),
  }),
  tool({
    name: 'chat',
    title: 'Chat with the owner’s AI brain',
    routeId: 'chat',
    extra: 'Pass conversationId from a reply to continue that conversation.',
    inputSchema: ChatRequest,
    writes: false,
    request: (args) => ({ method: 'POST', url: `${API_PREFIX}/brain/chat`, body: args }),
  }),
  tool({
    name: 'list_services',
    title: 'List connected services',
    routeId: 'listServices',
    inputSchema: NO_ARGUMENTS,
    writes: false,
    request: () => ({ method: 'GET', url: `${API_PREFIX}/services` }),
  }),
  tool({
    name: 'call_service_read',
    title: 'Read from a connected service',
    routeId: 'proxyGet',
    extra: 'A GET with the owner’s stored credentials; the connector decides whether the call only reads.',
    inputSchema: z
      .object({
        service: ServiceName,
        path: ServicePath,
        query: z.record(z.string(), z.string()).optional().describe('Query parameters of the call.'),
      })
      .strict(),
    writes: false,
    request: (args) => ({
      method: 'GET',
      url: serviceUrl(args),
    }),
  }),
  tool({
    name: 'call_service_write',
    title: 'Change data in a connected service',
    routeId: 'proxyPost',
    extra: 'POST, PUT, PATCH or DELETE with the owner’s stored credentials: always a write.',
    inputSchema: z
      .object({
        service: ServiceName,
        method: z.enum(['POST', 'PUT', 'PATCH', 'DELETE']),
        path: ServicePath,
        query: z.record(z.string(), z.string()).optional().describe('Query parameters of the call.'),
        body: z.unknown().optional().describe('The JSON body to send.'),
      })
      .strict(),
    writes: true,
    request: (args) => ({
      method: args.method as HttpMethod,
      url: serviceUrl(args),
      body: args.body,
    }),
  }),
  tool({
    name: 'list_triggers',
    title: 'List scheduled automations',
    routeId: 'listTriggers',
    inputSchema: NO_ARGUMENTS,
    writes: false,
    request: () => ({ method: 'GET', url: `${API_PREFIX}/triggers` }),
  }),
  tool({
    name: 'create_trigger',
    title: 'Schedule an automation',
    routeId: 'createTrigger',
    inputSchema: TriggerCreateRequest,
    writes: true,
    request: (args) => ({ method: 'POST', url: `${API_PREFIX}/triggers`, body: args }),
  }),
  tool({
    name: 'run_trigger',
    title: 'Run an automation now',
    routeId: 'runTrigger',
    inputSchema: z.object({ id: Id }).strict(),
    writes: true,
    request: (args) => ({ method: 'POST', url: `${API_PREFIX}/triggers/${segment(args.id)}/run` }),
  }),
];
