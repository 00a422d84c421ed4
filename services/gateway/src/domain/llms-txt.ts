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
import { availabilityOf } from './availability.ts';
import { GATEWAY_NAME, URL_WARNING } from './public-documents.ts';

/** The guide; an endpoint whose service is not among the `running` ones says so, with the reason. */
export function llmsTxt(baseUrl: string, running: ReadonlySet<string>): string {
  const endpoints = RouteTable.filter((route) => route.listed).map((route) => {
    const scope = documentedScope(route);
    const access = route.auth === 'none' ? 'no token' : scope ? `token with ${scope}` : 'token';
    const availability = availabilityOf(route, running);
    const down = availability.available ? '' : ` NOT AVAILABLE NOW: ${availability.reason}`;
    return `- ${route.method} ${baseUrl}${route.path} (${access}): ${route.summary}${down}`;
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

Every error is JSON: \`{"error": {"code", "message", "hint", "requestId"}}\`; the hint names the remedy for your
kind of token. 401 MALFORMED_TOKEN: send \`Authorization: Bearer <token>\` with the token exactly as issued.
401 TOKEN_EXPIRED: an OAuth token is refreshed at ${baseUrl}/oauth/token, a device token replaced by signing a new
assertion, a handshake or dashboard token by a new handshake or the owner. 401 TOKEN_REVOKED: do not retry; ask the
owner. 401 INVALID_TOKEN: the token is not known here; without a usable token, use the handshake flow.
403: your token lacks the scope named in the message (the hint says whether a handshake can bring it). 404 ROUTE_NOT_FOUND: check the path against the list below.
429: wait for Retry-After. 503 SERVICE_UNAVAILABLE: the service behind the endpoint is not running (this list and
your context's \`endpoints\` mark such endpoints \`available: false\` with the reason); retry after its Retry-After,
or use other endpoints meanwhile. 504: the service did not answer in time.

## Endpoints

${endpoints.join('\n')}

## Scopes

${scopes.join('\n')}

## Full description

- [OpenAPI 3.1](${baseUrl}/openapi.json)
- [Authentication guide](${baseUrl}/auth.md)
`;
}
