/**
 * Linear. Checked against linear.app/developers/oauth-2-0-authentication: scopes joined by
 * commas (`read` always granted), PKCE, a form-encoded token request; refresh tokens for every
 * OAuth app since 1 April 2026, rotating; revocation at /oauth/revoke. Its API is one GraphQL
 * endpoint, POST /graphql, for queries and mutations alike: every call needs write.
 */
import { defineProvider, METHOD_OVERRIDES } from '../provider-definition.ts';

export const linear = defineProvider({
  name: 'linear',
  displayName: 'Linear',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://linear.app/oauth/authorize',
    tokenUrl: 'https://api.linear.app/oauth/token',
    clientAuth: 'client_secret_post',
    pkce: true,
    defaultScopes: ['read'],
    scopeSeparator: ',',
    refreshTokens: 'rotating',
    revocation: { url: 'https://api.linear.app/oauth/revoke', style: 'rfc7009' },
  },
  api: {
    baseUrl: 'https://api.linear.app',
    allowedHosts: ['api.linear.app'],
    credential: { type: 'bearer' },
  },
  resources: ['graphql'],
  access: {
    style: 'rest',
    readAccess: 'Linear is one GraphQL endpoint (POST /graphql): every query and mutation needs write.',
    overrideParameters: METHOD_OVERRIDES,
  },
});
