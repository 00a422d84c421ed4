/**
 * POST /mcp (and POST / at the base URL): the gateway's functions as MCP tools, served by the
 * official SDK's Streamable HTTP transport in its stateless form (a fresh server and transport per
 * HTTP request, every answer JSON, no session to keep across replicas).
 *
 * A tool call is the API request it mirrors (mcp-tools.ts), made with the caller's own
 * Authorization header to this same server (tool-calls.ts: the client's address carried over).
 * So it passes every step an HTTP client's request passes:
 * route lookup, body validation, authentication, plan, scope, usage count and limits, dispatch,
 * and its audit event, one per tool call. Its refusals come back as tool errors carrying the same
 * status, code, hint and Retry-After. The MCP request itself is audited too, but not counted as
 * usage (its route says countsUsage: false): a tool call costs one request of the agent's limits.
 *
 * Step-up (MCP authorization, RFC 6750 §3.1): before the SDK runs, every tools/call of the HTTP
 * request is matched to its route, and a call needing a scope the token lacks makes the HTTP answer
 * a 403 insufficient_scope challenge naming that scope together with the token's own (so that the
 * token the client gets next keeps what it had), against the MCP endpoint's resource metadata.
 *
 * The SDK is imported on the first MCP request, not at start-up: about 7 MB of heap that a
 * gateway no MCP client talks to would keep resident for nothing (docs/adr/0080).
 */

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport as Transport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AGENT_CONDUCT_RULE, AppError, matchRoute, requiredScope, scopeGrants } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import { bearerChallenge } from '@pag/kit';
import type { Request, Response } from 'express';
import type { LocalHandler } from '../pipeline/dispatch.ts';
import { state } from '../pipeline/state.ts';
import { GATEWAY_VERSION } from '../version.ts';
import type { McpTool, ToolRequest } from './mcp-tools.ts';
import { MCP_TOOLS } from './mcp-tools.ts';
import type { ToolCalls } from './tool-calls.ts';

export interface McpEndpointOptions {
  /** Makes a tool call's request to this gateway (tool-calls.ts). */
  toolCalls: ToolCalls;
  publicUrl: string;
  logger: Logger;
}

const INSTRUCTIONS = `The owner's personal API gateway. Call get_context first. ${AGENT_CONDUCT_RULE} A tool that fails answers with the API's error (status, code, message, hint); a call your token's scopes do not cover is refused with a step-up challenge naming the scope.`;

/** The SDK's server and transport, imported once, on first use. */
let loading: Promise<{ McpServer: typeof McpServer; Transport: typeof Transport }> | undefined;
function mcpSdk() {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]).then(([mcp, http]) => ({ McpServer: mcp.McpServer, Transport: http.StreamableHTTPServerTransport }));
  return loading;
}

export function mcpEndpoint(options: McpEndpointOptions): LocalHandler {
  const { toolCalls, publicUrl, logger } = options;
  const tools = new Map(MCP_TOOLS.map((tool) => [tool.name, tool]));

  return async (req: Request, res: Response) => {
    const { identity, clientAddress, requestId } = state(res);
    const body = state(res).body;
    const stepUp = identity === undefined ? null : missingScope(body, tools, identity.scopes);
    if (stepUp !== null) throw stepUpChallenge(publicUrl, req.path, stepUp, identity?.scopes ?? []);

    /** One tool call: the route's request to this gateway, as the caller made it. */
    const call = async (request: ToolRequest): Promise<CallToolResult> => {
      const answer = await toolCalls.call(req, clientAddress, request);
      return toolResult(answer.status, answer.retryAfter, answer.body);
    };

    const sdk = await mcpSdk();
    const server = new sdk.McpServer(
      { name: 'personal-api-gateway', title: 'Personal API Gateway', version: GATEWAY_VERSION },
      { instructions: INSTRUCTIONS },
    );
    for (const tool of MCP_TOOLS) {
      server.registerTool(
        tool.name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          annotations: { readOnlyHint: !tool.writes, openWorldHint: tool.routeId.startsWith('proxy') },
        },
        (args: Record<string, unknown>) => call(tool.request(args)),
      );
    }
    // Stateless: no session id, and each answer is one JSON body (no server-sent events).
    const transport = new sdk.Transport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    transport.onerror = (error) => logger.warn({ err: error, requestId }, 'MCP request failed');
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

interface Missing {
  tool: string;
  scope: string;
}

/** The first tools/call of the body whose route needs a scope the token does not grant. */
function missingScope(
  body: unknown,
  tools: ReadonlyMap<string, McpTool>,
  scopes: readonly string[],
): Missing | null {
  for (const message of Array.isArray(body) ? body : [body]) {
    const call = toolCall(message);
    const tool = call === null ? undefined : tools.get(call.name);
    if (call === null || tool === undefined) continue;
    let request: ToolRequest;
    try {
      request = tool.request(call.arguments);
    } catch {
      continue; // arguments the tool cannot use: the SDK answers that call with its error
    }
    const url = new URL(request.url, 'http://gateway');
    const match = matchRoute(request.method, url.pathname);
    if (match === null || 'methodMismatch' in match) continue;
    const needed = requiredScope(match.route, match.params, request.method);
    if (needed !== null && !scopeGrants(scopes, needed)) return { tool: tool.name, scope: needed };
  }
  return null;
}

function toolCall(message: unknown): { name: string; arguments: Record<string, unknown> } | null {
  if (typeof message !== 'object' || message === null) return null;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return null;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') return null;
  const usable = typeof args === 'object' && args !== null && !Array.isArray(args);
  return { name, arguments: usable ? (args as Record<string, unknown>) : {} };
}

/** 403 insufficient_scope for the MCP endpoint, asking for the missing scope and the token's own. */
function stepUpChallenge(
  publicUrl: string,
  path: string,
  missing: Missing,
  scopes: readonly string[],
): AppError {
  const scope = [...new Set([...scopes, missing.scope])].join(' ');
  return new AppError(
    'INSUFFICIENT_SCOPE',
    `The tool ${missing.tool} needs the scope ${missing.scope}, which the token does not grant.`,
    {
      headers: {
        'www-authenticate': bearerChallenge(publicUrl, { error: 'insufficient_scope', path, scope }),
      },
    },
  );
}

/** A tool's result from its request's answer: the body as text, an error with its status and wait. */
function toolResult(status: number, retryAfter: string | null, payload: string): CallToolResult {
  if (status < 400) return { content: [{ type: 'text', text: payload }] };
  let parsed: unknown = payload;
  try {
    parsed = JSON.parse(payload);
  } catch {
    // not JSON (a connected service's own error page): passed on as text
  }
  const wait = retryAfter === null ? undefined : Number(retryAfter);
  const error = { status, ...(wait === undefined || Number.isNaN(wait) ? {} : { retryAfter: wait }) };
  const detail =
    typeof parsed === 'object' && parsed !== null ? { ...error, ...parsed } : { ...error, body: parsed };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(detail) }] };
}
