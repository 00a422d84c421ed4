/** Dropbox (developers.dropbox.com/oauth-guide): token_access_type=offline for a refresh token, which does not rotate; /2/auth/token/revoke takes the token itself. Its API is RPC over POST: every call needs write. */
import { defineProvider, METHOD_OVERRIDES } from '../provider-definition.ts';

export const dropbox = defineProvider({
  name: 'dropbox',
  displayName: 'Dropbox',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://www.dropbox.com/oauth2/authorize',
    tokenUrl: 'https://api.dropboxapi.com/oauth2/token',
    clientAuth: 'client_secret_basic',
    pkce: true,
    defaultScopes: ['account_info.read', 'files.metadata.read', 'files.content.read'],
    authorizationParams: { token_access_type: 'offline' },
    refreshTokens: 'static',
    revocation: { url: 'https://api.dropboxapi.com/2/auth/token/revoke', style: 'bearer' },
  },
  api: {
    baseUrl: 'https://api.dropboxapi.com/2',
    allowedHosts: ['api.dropboxapi.com'],
    credential: { type: 'bearer' },
  },
  resources: ['files', 'users', 'sharing'],
  access: {
    style: 'rest',
    readAccess: 'Dropbox takes every call as POST, so every call needs write, listing files included.',
    overrideParameters: METHOD_OVERRIDES,
  },
});
