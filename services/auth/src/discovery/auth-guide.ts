/**
 * /auth.md: the authentication guide for agents. One section per route of the spec's
 * Authentication section, each with curl examples, every URL built from PUBLIC_URL.
 */
import { HANDSHAKE_POLL_INTERVAL_SECONDS, HANDSHAKE_SCOPES, ScopeCatalogue } from '@pag/contracts';
import { DEFAULT_CREATION_LIMITS, PENDING_RETRY_SECONDS } from '../handshakes/creation-limits.ts';
import {
  CACHE_MAX_SECONDS,
  CACHE_MIN_SECONDS,
  DOCUMENT_MAX_BYTES,
  DOCUMENT_TIMEOUT_MS,
} from '../provider/client-documents.ts';
import { OAUTH_ROUTES } from '../provider/routes.ts';
import { DEFAULT_SCOPES } from '../provider/scopes.ts';

function scopeTable(): string {
  return Object.entries(ScopeCatalogue)
    .map(([scope, entry]) => `| \`${scope}\` | ${entry.description} |`)
    .join('\n');
}

function handshakeScopes(): string {
  return HANDSHAKE_SCOPES.map((scope) => `- \`${scope}\`: ${ScopeCatalogue[scope].description}`).join('\n');
}

export function authGuide(base: string): string {
  const limits = DEFAULT_CREATION_LIMITS;
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
need no authentication (a handshake can hand you a token directly: section 6). A missing or rejected token is a 401 whose \`WWW-Authenticate\` header names
the protected-resource metadata (${base}/.well-known/oauth-protected-resource/api/v1) and, where the
endpoint needs one, the \`scope\` to ask for.

**MCP clients.** The MCP endpoint is ${base}/mcp (Streamable HTTP; the base URL ${base}/ answers MCP
too). Its 401 names ${base}/.well-known/oauth-protected-resource/mcp (the base URL's:
${base}/.well-known/oauth-protected-resource) and the scopes \`knowledge chat\`; a token may be asked
for any of the three resources (\`resource\` = ${base}/api/v1, ${base}/mcp or ${base}/) and works on
all of them. A tool call that needs more is a 403 with \`error="insufficient_scope"\` and the scopes to
ask for next (yours and the missing one). Then authorize as in section 2.

## 2. OAuth 2.0 authorization code with PKCE (recommended for AI clients)

Discovery (RFC 8414; the \`agent_auth\` block describes every registration method):

\`\`\`sh
curl ${base}/.well-known/oauth-authorization-server
curl ${base}/.well-known/oauth-protected-resource/api/v1
\`\`\`

Register your client (RFC 7591). Public clients only: \`token_endpoint_auth_method\` is \`none\`;
redirect URIs are https, or http on a loopback address (127.0.0.1, [::1], localhost), matched exactly
except that a loopback URI matches with any port (RFC 8252: register \`http://127.0.0.1/callback\`,
then ask with the port you listen on). A native app (\`"application_type": "native"\`) may also
register a private-use scheme such as \`com.example.agent:/callback\` or \`cursor://…\`:

\`\`\`sh
curl -X POST ${oauth('registration')} -H 'Content-Type: application/json' -d '{
  "client_name": "My agent",
  "redirect_uris": ["http://127.0.0.1:8976/callback"],
  "grant_types": ["authorization_code", "refresh_token"],
  "response_types": ["code"],
  "token_endpoint_auth_method": "none"
}'
\`\`\`

Or skip registration with a Client ID Metadata Document (the discovery document says
\`client_id_metadata_document_supported\`): your \`client_id\` is the https URL of a JSON document
you publish, holding the same metadata plus \`"client_id"\`: that URL exactly. This server fetches it
(public addresses only, no redirects, at most ${DOCUMENT_MAX_BYTES / 1024} KB, ${DOCUMENT_TIMEOUT_MS / 1000} s), keeps it for its
\`Cache-Control: max-age\` (${CACHE_MIN_SECONDS} s to ${CACHE_MAX_SECONDS / 3600} h), checks it like a registration, and shows
the owner its host on the consent page. \`token_endpoint_auth_method\` must be \`none\`.

Send the owner's browser to the authorization endpoint with PKCE (method S256 only) and the API as
the resource (RFC 8707). Name the scopes you need; without any (no \`scope\`, or only
\`openid\`/\`offline_access\`) you are asked ${DEFAULT_SCOPES.map((scope) => `\`${scope}\``).join(' and ')}, what the MCP
endpoint's 401 names:

\`\`\`sh
VERIFIER=$(openssl rand -base64 48 | tr -d '=+/\\n' | cut -c1-64)
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
open "${oauth('authorization')}?response_type=code&client_id=$CLIENT_ID&redirect_uri=http%3A%2F%2F127.0.0.1%3A8976%2Fcallback&scope=read%20chat&state=$STATE&code_challenge=$CHALLENGE&code_challenge_method=S256&resource=${encodeURIComponent(api)}"
\`\`\`

The owner signs in and approves your client on the consent screen, where they may untick scopes
(the token's \`scope\` says what was granted; unticking all denies), set daily and monthly request
limits and pick the persona you follow (\`GET ${api}/tokens/me/capabilities\` shows what you got).
The redirect carries \`code\`,
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

Register your public key (raw 32 bytes base64url, or a public JWK \`{"kty":"OKP","crv":"Ed25519","x":…}\`):

\`\`\`sh
openssl genpkey -algorithm ed25519 -out device.pem
b64url() { basenc --base64url -w0 | tr -d '='; }
PUB=$(openssl pkey -in device.pem -pubout -outform DER | tail -c 32 | b64url)
curl -X POST ${api}/agentic/asc/register -H 'Content-Type: application/json' \\
  -d '{"publicKey": "'"$PUB"'", "deviceName": "alice-laptop (MCP)"}'
\`\`\`

The answer (201) holds \`deviceId\` (also your OAuth \`client_id\`), \`userCode\`, \`claimUrl\` and
\`fingerprint\` (SHA-256 of your raw key, base64url). Show your human the claim URL and the
fingerprint: the owner claims the device within 24 hours at ${base}/dashboard/devices/claim,
compares the fingerprint and approves it. A key registers once (409 afterwards); at most 10
registrations per hour per address (429 with Retry-After).

Get an access token with a fresh signed assertion (RFC 7523), one per request:

\`\`\`sh
HEADER=$(printf '{"alg":"EdDSA","typ":"JWT"}' | b64url); NOW=$(date +%s)
PAYLOAD=$(printf '{"iss":"%s","sub":"%s","aud":"${oauth('token')}","iat":%d,"exp":%d,"jti":"%s"}' \\
  "$DEVICE_ID" "$DEVICE_ID" "$NOW" "$((NOW + 120))" "$(openssl rand -hex 16)" | b64url)
printf %s "$HEADER.$PAYLOAD" > signing-input
SIG=$(openssl pkeyutl -sign -inkey device.pem -rawin -in signing-input | b64url)
curl -X POST ${oauth('token')} -d grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer \\
  -d assertion=$HEADER.$PAYLOAD.$SIG -d client_id=$DEVICE_ID
\`\`\`

Assertion rules: alg \`EdDSA\`; \`iss\` and \`sub\` are your device id; \`aud\` is ${oauth('token')}
(or ${base}); \`exp\` at most 5 minutes ahead; \`iat\` now; \`jti\` unique (a replay is refused).
The answer is \`{"access_token", "token_type": "Bearer", "expires_in": 3600, "scope"}\`; use it as
in section 1 and sign a new assertion when it expires (no refresh token).

| device state | token endpoint answer |
|---|---|
| pending (not yet claimed or approved) | 403 \`{"error": "device_pending_approval"}\`: wait, retry later |
| approved | 200 with an access token |
| denied | 400 \`{"error": "invalid_grant"}\`: register a new key to ask again |
| revoked | 401 \`{"error": "invalid_client"}\`: final |
| bad assertion (signature, aud, exp, replayed jti…) | 400 \`{"error": "invalid_grant"}\` saying which rule |

## 5. Account sign-up

Human owners create their account at ${base}/signup, then register agents on their behalf (a
dashboard token) or approve them (OAuth consent, device approval, handshake).

## 6. Without a usable token: the handshake

Ask the owner for access, show your human the \`claimUrl\` from the answer, then poll the status
every \`interval\` seconds (the answer says it, and so does its Retry-After header) until it is
\`approved\` or \`denied\`. The owner decides at ${base}/dashboard/handshakes, may grant fewer
scopes than you asked for and set daily and monthly limits. On a gateway with several owners your
request waits until an owner opens the \`claimUrl\`. The status follows the token: if the owner later
revokes it, the status reads \`denied\`.

The token reaches you one of two ways (\`tokenDelivery\` in the 201 answer says which):

- **pickup** (recommended): send a proof when you ask, a PKCE-style \`codeChallenge\` (RFC 7636,
  method \`S256\` only): keep a random code verifier secret and send BASE64URL(SHA-256(verifier)).
  Once approved, poll with the header \`Handshake-Verifier: <verifier>\`: the first such answer
  carries your token, its scopes, limits and expiry, and no answer ever carries it again (later ones
  say \`"tokenCollected": true\`); store it at once. Only you, who hold the verifier, can collect it.
  A verifier that does not match is 403 \`HANDSHAKE_PROOF_MISMATCH\`.
- **owner**: without a \`codeChallenge\`, the owner is shown the token once and gives it to you out
  of band; the status never carries it. Use it as your Bearer token.

Requestable scopes (nothing else can be asked for this way):
${handshakeScopes()}

Pickup, step by step (the verifier: 43 to 128 characters among letters, digits and \`-._~\`):

\`\`\`sh
VERIFIER=$(openssl rand -hex 32)
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
# or both with node: node -e 'const c=require("node:crypto"),v=c.randomBytes(32).toString("base64url");console.log(v, c.createHash("sha256").update(v).digest("base64url"))'
curl -X POST ${api}/handshakes -H 'Content-Type: application/json' \\
  -d '{"agentId": "my-agent@host", "requestedScopes": ["read"], "message": "Who I am and why I need access.",
       "codeChallenge": "'"$CHALLENGE"'", "codeChallengeMethod": "S256"}'
# 201 {"handshakeId": "hs_…", "status": "pending", "claimUrl": "${base}/dashboard/handshakes/claim?code=…",
#      "tokenDelivery": "pickup", "interval": ${HANDSHAKE_POLL_INTERVAL_SECONDS}}
curl -H "Handshake-Verifier: $VERIFIER" ${api}/handshakes/$HANDSHAKE_ID/status
# pending:  {"handshakeId": "hs_…", "status": "pending", "interval": ${HANDSHAKE_POLL_INTERVAL_SECONDS}}  (Retry-After: ${HANDSHAKE_POLL_INTERVAL_SECONDS}; poll again then)
# approved, the first time only:
#   {"handshakeId": "hs_…", "status": "approved", "tokenCollected": true, "token": {"accessToken": "pag_ht_…",
#    "tokenType": "Bearer", "agentId": "ag_…", "scopes": ["read"], "dailyLimit": null, "monthlyLimit": null,
#    "expiresAt": "…"}}
# afterwards: {"handshakeId": "hs_…", "status": "approved", "tokenCollected": true}
\`\`\`

The owner path is the same without \`codeChallenge\`, \`codeChallengeMethod\` and the header; its
status answers are \`{"handshakeId": "hs_…", "status": "pending" | "approved" | "denied"}\` (with
\`interval\` while pending).

Limits: from one client address, ${limits.perClientPerQueuePerHour} handshakes per hour to one owner; per
\`agentId\` from one address, ${limits.pendingPerClientAgent} pending at once and ${limits.perClientAgentPerHour} per hour. Over a limit: 429
\`RATE_LIMITED\` with Retry-After (for the pending limit at most ${PENDING_RETRY_SECONDS} s: a place frees as soon as
the owner decides one of your pending handshakes). An unknown \`handshakeId\` is 404. The token of an
approved handshake works for 90 days unless the owner chose another day.

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
