/** Linear (linear.app/developers/oauth-2-0-authentication): refresh tokens for every OAuth app since April 2026, rotating; RFC 7009 style revoke. */
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
