/**
 * Spotify. Checked against developer.spotify.com/documentation/web-api/tutorials/code-flow
 * and /tutorials/refreshing-tokens: client id and secret by Basic, a
 * form-encoded token request, PKCE; a refresh may answer a new refresh token (kept when it does
 * not). Spotify offers no revocation endpoint (the owner removes the app at spotify.com/account/apps).
 */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const spotify = defineProvider({
  name: 'spotify',
  displayName: 'Spotify',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://accounts.spotify.com/authorize',
    tokenUrl: 'https://accounts.spotify.com/api/token',
    clientAuth: 'client_secret_basic',
    pkce: true,
    defaultScopes: ['user-read-private', 'user-read-recently-played', 'playlist-read-private'],
    refreshTokens: 'rotating',
    revocation: null,
  },
  api: {
    baseUrl: 'https://api.spotify.com/v1',
    allowedHosts: ['api.spotify.com'],
    credential: { type: 'bearer' },
  },
  resources: ['me', 'users', 'playlists', 'albums', 'artists', 'tracks', 'search'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} the owner's profile, library, playlists and the catalogue.`,
    overrideParameters: METHOD_OVERRIDES,
  },
});
