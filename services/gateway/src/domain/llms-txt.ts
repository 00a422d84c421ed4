/**
 * /llms.txt: a plain guide an LLM agent can follow from the base URL alone, in the llms.txt
 * convention (a title, a summary in a blockquote, then sections of links and rules).
 */
import {
  AGENT_CONDUCT_RULE,
  API_PREFIX,
  documentedScope,
  MCP_PATH,
  RouteTable,
  ScopeCatalogue,
} from '@pag/contracts';
import { GATEWAY_NAME, URL_WARNING } from './public-documents.ts';

export function llmsTxt(baseUrl: string): string {
  const endpoints = RouteTable.filter((route) => route.listed).map((route) => {
    const scope = documentedScope(route);
    const access = route.auth === 'none' ? 'no token' : scope ? `token with ${scope}` : 'token';
    return `- ${route.method} ${baseUrl}${route.path} (${access}): ${route.summary}`;
  });
  const scopes = Object.entries(ScopeCatalogue).map(
    ([scope, entry]) => `- \`${scope}\`: ${entry.description}`,
  );
  return `# ${GATEWAY_NAME}

> The owner's personal data and connected services, for AI agents acting for the owner with a bearer token,
> within the scopes the owner granted.

IMPORTANT: ${AGENT_CONDUCT_RULE}

## Base URL

${URL_WARNING(baseUrl)}

## Start here

1. GET ${baseUrl}${API_PREFIX}/quick-start (no token): the steps below, as JSON.
2. With a token (header \`Authorization: Bearer <token>\`), GET ${baseUrl}${API_PREFIX}/gateway/context first:
   persona, identity, memory, connected services and the endpoints your token may call.
   To keep a note for later sessions, POST ${baseUrl}${API_PREFIX}/memory with \`{"content": "<the note, markdown>"}\`
   (any valid token; it appears in the context from then on). Every other body: ${baseUrl}/openapi.json.
3. Without a usable token, the handshake; the owner approves it, and you collect the token yourself:
   make a code verifier and keep it secret (\`VERIFIER=$(openssl rand -hex 32)\`) and its S256 challenge
   (\`CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')\`);
   POST ${baseUrl}${API_PREFIX}/handshakes with
   \`{"agentId": "<stable id>", "requestedScopes": ["read"], "message": "<who you are and why>", "codeChallenge": "<CHALLENGE>", "codeChallengeMethod": "S256"}\`,
   show your human the \`claimUrl\`, then poll GET ${baseUrl}${API_PREFIX}/handshakes/{handshakeId}/status with the header
   \`Handshake-Verifier: <VERIFIER>\` every \`interval\` seconds (also its Retry-After) until \`approved\` or \`denied\`.
   The first approved answer carries \`token.accessToken\` (with its scopes, limits and expiry), never a later one.
   Without \`codeChallenge\`, the owner shares the token with you instead. Details: ${baseUrl}/auth.md, section 6.
4. OAuth 2.1 clients: discovery at ${baseUrl}/.well-known/oauth-authorization-server
   (authorization code with PKCE S256 and dynamic client registration).
5. MCP clients: the MCP endpoint is ${baseUrl}${MCP_PATH} (the base URL ${baseUrl}/ answers MCP too), Streamable
   HTTP, OAuth as in the MCP authorization spec (a 401 names the resource metadata and the scopes to ask for;
   a tool beyond your scopes is a 403 insufficient_scope challenge naming the scope). Every tool is one of
   the endpoints below, with the same scopes, limits and errors.

## Errors

Every error is JSON: \`{"error": {"code", "message", "hint", "requestId"}}\`. 401: use the handshake flow.
403: your token lacks the scope named in the message. 404 ROUTE_NOT_FOUND: check the path against the list below.
429: wait for Retry-After. 503/504: the service behind the endpoint is not available; retry later.

## Endpoints

${endpoints.join('\n')}

## Scopes

${scopes.join('\n')}

## Full description

- [OpenAPI 3.1](${baseUrl}/openapi.json)
- [Authentication guide](${baseUrl}/auth.md)
`;
}
