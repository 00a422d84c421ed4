/**
 * oidc-provider's configuration, assembled from one file per concern. OAuth 2.1 and RFC 9700:
 * - the authorization code flow only (response type `code`; grants authorization_code and
 *   refresh_token), PKCE S256 required for every client, redirect URIs matched exactly (the
 *   registration policy admits http for loopback hosts only);
 * - refresh tokens issued to every client allowed the grant and rotated on every use; reuse of a
 *   rotated one revokes the grant (oidc-provider's refresh handler, and the adapter's atomic
 *   consume for concurrent reuse);
 * - opaque access tokens for the API resource only (resource-indicators.ts);
 * - introspection for resource servers only, revocation for everyone's own tokens;
 * - `iss` in every authorization response (RFC 9207; always on in oidc-provider 9);
 * - nothing development-only: no devInteractions, keys and cookie keys from our config, and
 *   oidc-provider's own outbound fetch refused (nothing a client registers makes this server call
 *   a URL); the one fetch is of a client's metadata document, behind the adapter
 *   (client-documents.ts, through kit's fetchPublic).
 */
import { randomBytes } from 'node:crypto';
import type { AdapterFactory, Configuration, JWKS } from 'oidc-provider';
import type { AuthConfig } from '../config.ts';
import type { AccountLookup } from '../store/account-lookup.ts';
import { extraTokenClaims, introspectionFeature, resourceServerClients } from './introspection.ts';
import { logoutSource, postLogoutSuccessSource, renderError } from './pages.ts';
import { prepareRegistration } from './registration-policy.ts';
import { resourceIndicators } from './resource-indicators.ts';
import { INTERACTION_PATH, OAUTH_ROUTES } from './routes.ts';
import { OIDC_SCOPES } from './scopes.ts';
import { lifetimes } from './ttl.ts';

export interface ProviderConfigOptions {
  config: AuthConfig;
  /** `${issuer}/api/v1`. */
  apiResource: string;
  adapter: AdapterFactory;
  jwks: JWKS;
  findAccount: AccountLookup;
}

const ES256_ONLY = ['ES256'] as const;

export function providerConfiguration(options: ProviderConfigOptions): Configuration {
  const { config, apiResource } = options;
  return {
    adapter: options.adapter,
    clients: resourceServerClients(config.introspectionClients),
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    clientAuthMethods: ['none', 'client_secret_basic'],
    // Browser-based public clients may call the token endpoint from a registered redirect origin.
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      client.clientAuthMethod === 'none' &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    cookies: { keys: config.cookieKeys },
    jwks: options.jwks,
    findAccount: (_ctx, sub) => options.findAccount(sub),
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}` },
    pkce: { required: () => true },
    responseTypes: ['code'],
    scopes: [...OIDC_SCOPES],
    routes: { ...OAUTH_ROUTES },
    ttl: lifetimes(config.accessTokenTtlSeconds, config.refreshTokenTtlSeconds),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: async () => false,
    allowOmittingSingleRegisteredRedirectUri: false,
    extraTokenClaims,
    renderError,
    enabledJWA: {
      idTokenSigningAlgValues: [...ES256_ONLY],
      userinfoSigningAlgValues: [...ES256_ONLY],
      introspectionSigningAlgValues: [...ES256_ONLY],
      authorizationSigningAlgValues: [...ES256_ONLY],
    },
    fetch: async (url) => {
      throw new Error(`outbound fetch refused (${String(url)})`);
    },
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      registration: {
        enabled: true,
        initialAccessToken: false,
        issueRegistrationAccessToken: false,
        idFactory: (ctx) => {
          prepareRegistration(ctx.oidc.body as Record<string, unknown> | undefined);
          return randomBytes(24).toString('base64url');
        },
      },
      registrationManagement: { enabled: false },
      introspection: introspectionFeature(config.introspectionClients),
      // RFC 7009 §2.1: a client revokes its own tokens; another's are left alone (still 200).
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId,
      },
      // Every access token is for the API resource; userinfo could accept none of them.
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      clientCredentials: { enabled: false },
      deviceFlow: { enabled: false },
      claimsParameter: { enabled: false },
      resourceIndicators: resourceIndicators(
        new URL(apiResource).origin,
        apiResource,
        config.accessTokenTtlSeconds,
      ),
    },
  };
}
