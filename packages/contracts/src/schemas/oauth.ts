/**
 * The bodies of the auth service's OAuth endpoints (oidc-provider answers them; the OpenAPI
 * document describes them from these schemas). Answers stay open (looseObject): oidc-provider may
 * add standard members; requests list the parameters this server reads.
 */
import { z } from 'zod';

/** RFC 6749 §5.2 (and RFC 7591, RFC 7009, RFC 7662): every OAuth endpoint's error body. */
export const OAuthError = z
  .looseObject({
    error: z
      .string()
      .describe(
        'invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, invalid_target, invalid_redirect_uri, invalid_client_metadata, device_pending_approval, server_error…',
      ),
    error_description: z.string().optional().describe('What went wrong, for a human.'),
  })
  .describe('An OAuth error (RFC 6749 §5.2).');

const Form = (description: string) => z.string().describe(description);

/** POST /oauth/token (application/x-www-form-urlencoded). */
export const OAuthTokenRequest = z
  .object({
    grant_type: z
      .enum(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'])
      .describe(
        'authorization_code (with code, redirect_uri, code_verifier), refresh_token (with refresh_token; refresh tokens rotate on every use), or the RFC 7523 JWT bearer grant of an approved Ed25519 device (with assertion and client_id = the device id).',
      ),
    client_id: Form('The client id (a public client, token_endpoint_auth_method none).').optional(),
    code: Form('The authorization code from the redirect.').optional(),
    redirect_uri: Form('The redirect URI the code was issued to, exactly.').optional(),
    code_verifier: Form(
      'The PKCE code verifier (RFC 7636) whose S256 challenge the authorization request sent.',
    ).optional(),
    refresh_token: Form('The refresh token from the previous answer.').optional(),
    assertion: Form("A device's signed JWT (EdDSA), see /auth.md.").optional(),
    resource: Form(
      'The protected resource the token is for (RFC 8707): the API, the MCP endpoint or the base URL.',
    ).optional(),
    scope: Form('Space-separated scopes, at most those granted.').optional(),
  })
  .describe('A token request (RFC 6749 §4.1.3, §6; RFC 7523).');

export const OAuthTokenResponse = z
  .looseObject({
    access_token: z.string(),
    token_type: z.string().describe('Bearer.'),
    expires_in: z.number().int(),
    refresh_token: z.string().optional(),
    scope: z.string().optional(),
    id_token: z.string().optional(),
  })
  .describe('A token answer (RFC 6749 §5.1).');

/** POST /oauth/register (RFC 7591, open registration; JSON). */
export const ClientRegistrationRequest = z
  .looseObject({
    redirect_uris: z
      .array(z.string())
      .min(1)
      .describe('https URIs, loopback http URIs (any port), or private-use schemes of native apps.'),
    client_name: z.string().optional(),
    grant_types: z.array(z.string()).optional(),
    response_types: z.array(z.string()).optional(),
    token_endpoint_auth_method: z.string().optional().describe('none (the default): a public client.'),
    scope: z.string().optional(),
  })
  .describe('Client metadata (RFC 7591 §2).');

export const ClientRegistrationResponse = z
  .looseObject({
    client_id: z.string(),
    client_id_issued_at: z.number().int().optional(),
    redirect_uris: z.array(z.string()),
  })
  .describe('The registered client (RFC 7591 §3.2.1).');

/** POST /oauth/revoke (RFC 7009; form). */
export const OAuthRevocationRequest = z
  .object({
    token: Form('The access or refresh token to revoke.'),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
    client_id: Form('The client the token was issued to.').optional(),
  })
  .describe('A revocation request (RFC 7009 §2.1).');

/** POST /oauth/introspect (RFC 7662; form, for resource servers with their credentials). */
export const OAuthIntrospectionRequest = z
  .object({
    token: Form('The token to introspect.'),
    token_type_hint: z.enum(['access_token', 'refresh_token']).optional(),
  })
  .describe('An introspection request (RFC 7662 §2.1); the caller authenticates with client_secret_basic.');

export const OAuthIntrospectionResponse = z
  .looseObject({
    active: z.boolean(),
    scope: z.string().optional(),
    client_id: z.string().optional(),
    sub: z.string().optional(),
    exp: z.number().int().optional(),
  })
  .describe('An introspection answer (RFC 7662 §2.2).');

export const JsonWebKeySet = z
  .looseObject({ keys: z.array(z.looseObject({ kty: z.string() })) })
  .describe('The public keys of the server (RFC 7517), for id_token signatures.');

/** RFC 9728 §2; one per identifier of the gateway (contracts' protected-resources.ts). */
export const ProtectedResourceMetadata = z
  .looseObject({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    resource_name: z.string().optional(),
    resource_documentation: z.string().optional(),
  })
  .describe('OAuth 2.0 protected resource metadata (RFC 9728).');
