/**
 * /auth.md: the authentication guide for agents. One section per route of the spec's
 * Authentication section, each with curl examples, every URL built from PUBLIC_URL.
 */
import { HANDSHAKE_SCOPES, ScopeCatalogue } from '@pag/contracts';
import { OAUTH_ROUTES } from '../provider/routes.ts';

function scopeTable(): string {
  return Object.entries(ScopeCatalogue)
    .map(([scope, entry]) => `| \`${scope}\` | ${entry.description} |`)
    .join('\n');
}

export function authGuide(base: string): string {
  const api = `${base}/api/v1`;
  const oauth = (route: keyof typeof OAUTH_ROUTES) => `${base}${OAUTH_ROUTES[route]}`;
  return `# Authenticating with this gateway

Base URL: ${base}

- Use the base URL exactly as given. Do not follow redirects: they drop the Authorization header.
- Every API path already starts with \`/api/v1\`; never add it twice.
- Before performing any action, describe what you intend to do and wait for explicit human approval.

## 1. Calling the API with a token

Send the token in the Authorization header on every call (never in the query string):

\`\`\`sh
curl -H "Authorization: Bearer $ACCESS_TOKEN" ${api}/tokens/me/capabilities
curl -H "Authorization: Bearer $ACCESS_TOKEN" ${api}/gateway/context
\`\`\`

Without a token, quick-start, handshake creation and status, this guide and the discovery documents
need no authentication. A missing or rejected token is a 401 whose \`WWW-Authenticate\` header names
the protected-resource metadata (${base}/.well-known/oauth-protected-resource/api/v1).

## 2. OAuth 2.0 authorization code with PKCE (recommended for AI clients)

Discovery (RFC 8414; the \`agent_auth\` block describes every registration method):

\`\`\`sh
curl ${base}/.well-known/oauth-authorization-server
curl ${base}/.well-known/oauth-protected-resource/api/v1
\`\`\`

Register your client (RFC 7591). Public clients only: \`token_endpoint_auth_method\` is \`none\`;
redirect URIs are https, or http on a loopback address (127.0.0.1, [::1], localhost), matched exactly:

\`\`\`sh
curl -X POST ${oauth('registration')} -H 'Content-Type: application/json' -d '{
  "client_name": "My agent",
  "redirect_uris": ["http://127.0.0.1:8976/callback"],
  "grant_types": ["authorization_code", "refresh_token"],
  "response_types": ["code"],
  "token_endpoint_auth_method": "none"
}'
\`\`\`

Send the owner's browser to the authorization endpoint with PKCE (method S256 only) and the API as
the resource (RFC 8707):

\`\`\`sh
VERIFIER=$(openssl rand -base64 48 | tr -d '=+/\\n' | cut -c1-64)
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
open "${oauth('authorization')}?response_type=code&client_id=$CLIENT_ID&redirect_uri=http%3A%2F%2F127.0.0.1%3A8976%2Fcallback&scope=read%20chat&state=$STATE&code_challenge=$CHALLENGE&code_challenge_method=S256&resource=${encodeURIComponent(api)}"
\`\`\`

The owner signs in and approves your client on the consent screen. The redirect carries \`code\`,
\`state\` and \`iss\` (RFC 9207: check that \`iss\` is ${base}). Exchange the code within a minute:

\`\`\`sh
curl -X POST ${oauth('token')} -d grant_type=authorization_code -d code=$CODE \\
  -d redirect_uri=http://127.0.0.1:8976/callback -d client_id=$CLIENT_ID -d code_verifier=$VERIFIER
\`\`\`

The answer holds an opaque \`access_token\` for ${api} and a \`refresh_token\`. Refresh before the
access token expires; every refresh returns a new refresh token, and presenting an old one again
revokes the whole grant (every token of it):

\`\`\`sh
curl -X POST ${oauth('token')} -d grant_type=refresh_token -d refresh_token=$REFRESH_TOKEN -d client_id=$CLIENT_ID
\`\`\`

Revoke a token you no longer need (RFC 7009):

\`\`\`sh
curl -X POST ${oauth('revocation')} -d token=$REFRESH_TOKEN -d client_id=$CLIENT_ID
\`\`\`

## 3. A bearer token from the owner

The owner creates a scoped token at ${base}/dashboard/tokens and gives it to you. Use it as in
section 1. It works until the owner revokes it there.

## 4. An Ed25519 device keypair

Register your public key as a device credential, then wait for the owner to claim and approve it
at ${base}/dashboard/devices (they compare the \`userCode\` you show them). Until then, calls with
the device credential return 403.

\`\`\`sh
curl -X POST ${api}/agentic/asc/register -H 'Content-Type: application/json' \\
  -d '{"publicKey": "<32-byte Ed25519 public key, base64url>", "deviceName": "alice-laptop (MCP)"}'
\`\`\`

## 5. Account sign-up

Human owners create their account at ${base}/signup, then register agents on their behalf (a
dashboard token) or approve them (OAuth consent, device approval, handshake).

## 6. Without a usable token: the handshake

Ask the owner for access, then poll until the status is \`approved\`; the owner then shares a new
token with you, which you use as your Bearer token. Requestable scopes: ${HANDSHAKE_SCOPES.map((s) => `\`${s}\``).join(', ')}.

\`\`\`sh
curl -X POST ${api}/handshakes -H 'Content-Type: application/json' \\
  -d '{"agentId": "my-agent@host", "requestedScopes": ["read"], "message": "Who I am and why I need access."}'
curl ${api}/handshakes/$HANDSHAKE_ID/status
\`\`\`

## Scopes

Scopes are hierarchical: \`full\` contains \`services:*\`, which contains \`services:{name}:read\` and
\`services:{name}:write\`; some services have per-resource sub-scopes.

| scope | grants |
|---|---|
${scopeTable()}

## Limits, revocation, audit

- Per-agent daily and monthly limits may apply; exceeding one returns 429 with Retry-After.
- Owners revoke tokens at ${base}/dashboard/tokens and devices at ${base}/dashboard/devices; the
  effect is immediate.
- Every request is recorded in an immutable audit log.
`;
}
