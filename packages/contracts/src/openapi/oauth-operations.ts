/**
 * The auth service's OAuth endpoints and discovery documents, as OpenAPI operations. They are not
 * routes of the route table (the gateway forwards /oauth/* and /.well-known/* to the auth service
 * before route lookup, and oidc-provider answers them), so they are described here, at the paths
 * of OAUTH_ROUTES, the list oidc-provider is configured with. Their errors are OAuth's own body
 * (`{error, error_description}`); only the gateway's forwarding failures use the error body.
 * Not described: the sign-in, consent and dashboard HTML pages, which are for the owner's browser.
 */
import type { z } from 'zod';
import { OAUTH_ROUTES, SERVER_METADATA_PATHS } from '../routes/oauth-routes.ts';
import { PROTECTED_RESOURCES } from '../routes/protected-resources.ts';
import { OAuthServerMetadata } from '../schemas/discovery.ts';
import {
  ClientRegistrationRequest,
  ClientRegistrationResponse,
  JsonWebKeySet,
  OAuthIntrospectionRequest,
  OAuthIntrospectionResponse,
  OAuthRevocationRequest,
  OAuthTokenRequest,
  OAuthTokenResponse,
  ProtectedResourceMetadata,
} from '../schemas/oauth.ts';

export interface OAuthOperation {
  readonly id: string;
  readonly method: 'get' | 'post';
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  /** The request body and its media type. */
  readonly body?: { readonly type: 'form' | 'json'; readonly schema: z.ZodType };
  /** Query parameters (name → description), all strings; `required` lists the required ones. */
  readonly query?: Readonly<Record<string, string>>;
  readonly required?: readonly string[];
  /** The success answer: a JSON schema, an HTML page, a redirect, or an empty 200. */
  readonly success:
    | { readonly status: 200 | 201; readonly schema: z.ZodType; readonly mediaType?: string }
    | { readonly status: 200; readonly html: string }
    | { readonly status: 303; readonly redirect: string }
    | { readonly status: 200; readonly empty: string };
  /** OAuth errors by status, with the `error` values that status carries. */
  readonly oauthErrors: Readonly<Record<number, readonly string[]>>;
  /** Errors shown as an HTML page (the authorization endpoint cannot redirect a bad client). */
  readonly htmlErrors?: Readonly<Record<number, string>>;
  /** 'basic': HTTP Basic with the client's credentials (resource servers introspecting). */
  readonly auth?: 'basic';
}

const metadata = (id: string, path: string, summary: string, schema: z.ZodType): OAuthOperation => ({
  id,
  method: 'get',
  path,
  summary,
  description: `${summary}. Public, built from PUBLIC_URL, cacheable.`,
  success: { status: 200, schema },
  oauthErrors: {},
});

const wellKnownResource = (suffix: string) => `/.well-known/oauth-protected-resource${suffix}`;

export const OAuthOperations: readonly OAuthOperation[] = [
  {
    id: 'oauthAuthorize',
    method: 'get',
    path: OAUTH_ROUTES.authorization,
    summary: 'OAuth authorization endpoint (authorization code with PKCE S256)',
    description:
      "Opens the owner's sign-in and consent in their browser: answered with a redirect to the sign-in and consent pages, and after them to redirect_uri with `code` and `iss` (or `error`). A request whose client or redirect_uri cannot be trusted is never redirected: it is answered with an HTML error page.",
    query: {
      response_type: 'code (the only response type).',
      client_id: 'The registered client id.',
      redirect_uri: 'One of the registered redirect URIs, exactly.',
      code_challenge: 'BASE64URL(SHA-256(code_verifier)) (RFC 7636).',
      code_challenge_method: 'S256 (the only method; PKCE is required).',
      scope: 'Space-separated scopes (GET /api/v1/capabilities lists them).',
      state: 'Opaque value returned unchanged with the code.',
      resource: 'The protected resource the token will be for (RFC 8707).',
    },
    required: ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method'],
    success: {
      status: 303,
      redirect:
        'To the sign-in and consent pages, or to redirect_uri with the code or the error (RFC 6749 §4.1.2).',
    },
    oauthErrors: {},
    htmlErrors: {
      400: 'An unknown client, a redirect_uri not registered, or a malformed request: an HTML page naming the OAuth error.',
    },
  },
  {
    id: 'oauthToken',
    method: 'post',
    path: OAUTH_ROUTES.token,
    summary: 'OAuth token endpoint: code, refresh token, or a device assertion for a token',
    description:
      "Exchanges an authorization code (with its PKCE verifier), a refresh token (rotated on every use; reusing a rotated one revokes the grant), or an approved device's signed assertion (RFC 7523) for an access token.",
    body: { type: 'form', schema: OAuthTokenRequest },
    success: { status: 200, schema: OAuthTokenResponse },
    oauthErrors: {
      400: [
        'invalid_request',
        'invalid_grant',
        'unsupported_grant_type',
        'invalid_scope',
        'invalid_target',
        'unauthorized_client',
      ],
      401: ['invalid_client'],
      403: ['device_pending_approval'],
    },
  },
  {
    id: 'oauthRegister',
    method: 'post',
    path: OAUTH_ROUTES.registration,
    summary: 'Register an OAuth client (RFC 7591 dynamic client registration)',
    description:
      "Open registration without an initial access token. A public client (token_endpoint_auth_method none) with the authorization_code and refresh_token grants; redirect URIs are https, loopback http (any port) or a native app's private-use scheme.",
    body: { type: 'json', schema: ClientRegistrationRequest },
    success: { status: 201, schema: ClientRegistrationResponse },
    oauthErrors: { 400: ['invalid_request', 'invalid_client_metadata', 'invalid_redirect_uri'] },
  },
  {
    id: 'oauthRevoke',
    method: 'post',
    path: OAUTH_ROUTES.revocation,
    summary: 'Revoke an access or refresh token (RFC 7009)',
    description:
      "A client revokes its own tokens; another client's token, or an unknown one, is left alone and still answered 200 (RFC 7009 §2.2). The revocation takes effect at once everywhere.",
    body: { type: 'form', schema: OAuthRevocationRequest },
    success: { status: 200, empty: 'Revoked, or nothing to revoke.' },
    oauthErrors: { 400: ['invalid_request', 'unsupported_token_type'], 401: ['invalid_client'] },
  },
  {
    id: 'oauthIntrospect',
    method: 'post',
    path: OAUTH_ROUTES.introspection,
    summary: 'Introspect a token (RFC 7662), for resource servers only',
    description:
      'Only the resource servers configured in the auth service (INTROSPECTION_CLIENTS) may introspect, with HTTP Basic authentication; an agent has no use for it (GET /api/v1/tokens/me/capabilities tells a token what it grants).',
    body: { type: 'form', schema: OAuthIntrospectionRequest },
    success: { status: 200, schema: OAuthIntrospectionResponse },
    oauthErrors: { 400: ['invalid_request'], 401: ['invalid_client'] },
    auth: 'basic',
  },
  {
    id: 'oauthJwks',
    method: 'get',
    path: OAUTH_ROUTES.jwks,
    summary: "The authorization server's public keys (JWKS)",
    description:
      'The ES256 keys that sign id_tokens. Access tokens are opaque: they are not signed with these.',
    success: { status: 200, schema: JsonWebKeySet, mediaType: 'application/jwk-set+json' },
    oauthErrors: {},
  },
  {
    id: 'oauthEndSession',
    method: 'get',
    path: OAUTH_ROUTES.end_session,
    summary: "End the owner's sign-in session (OpenID RP-initiated logout)",
    description: "An HTML page asking the owner's browser to confirm signing out.",
    query: {
      id_token_hint: 'An id_token the client received.',
      post_logout_redirect_uri: 'A registered post-logout redirect URI.',
      state: 'Returned unchanged with the redirect.',
      client_id: 'The client id.',
    },
    success: { status: 200, html: 'A page to confirm signing out.' },
    oauthErrors: {},
    htmlErrors: {
      400: 'A malformed request, or a post_logout_redirect_uri not registered: an HTML page naming the error.',
    },
  },
  metadata(
    'openidConfiguration',
    SERVER_METADATA_PATHS.openid,
    'OpenID Connect discovery metadata (same content as /.well-known/oauth-authorization-server)',
    OAuthServerMetadata,
  ),
  metadata(
    'protectedResourceMetadataBase',
    wellKnownResource(PROTECTED_RESOURCES.base),
    'Protected resource metadata of the base URL (RFC 9728)',
    ProtectedResourceMetadata,
  ),
  metadata(
    'protectedResourceMetadataApi',
    wellKnownResource(PROTECTED_RESOURCES.api),
    'Protected resource metadata of the API at /api/v1 (RFC 9728)',
    ProtectedResourceMetadata,
  ),
  metadata(
    'protectedResourceMetadataMcp',
    wellKnownResource(PROTECTED_RESOURCES.mcp),
    'Protected resource metadata of the MCP endpoint (RFC 9728)',
    ProtectedResourceMetadata,
  ),
];
