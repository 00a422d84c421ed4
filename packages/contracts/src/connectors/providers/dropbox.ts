/**
 * Dropbox. Checked against developers.dropbox.com/oauth-guide (PKCE, client id and secret by
 * Basic or in the body), dropbox.tech/developers/using-oauth-2-0-with-offline-access
 * (token_access_type=offline for a refresh token, which is long-lived and does not rotate) and
 * the auth/token/revoke reference of Dropbox's SDKs (dropbox.github.io/dropbox-sdk-java: it
 * takes the access token itself and ends its refresh token too). Every RPC endpoint is a POST on
 * api.dropboxapi.com: only the listed ones, which only read, need read; every other call needs
 * write. Uploads and downloads are on content.dropboxapi.com, which this connector does not reach.
 */
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
    readAccess:
      'Dropbox takes every call as POST: the listed calls that only read (list_folder, get_metadata, search_v2, get_current_account, get_space_usage, list_shared_links and their continuations) need read; every other call needs write.',
    overrideParameters: METHOD_OVERRIDES,
    operations: [
      { method: 'POST', path: 'files/list_folder', access: 'read', resource: 'files' },
      { method: 'POST', path: 'files/list_folder/continue', access: 'read', resource: 'files' },
      { method: 'POST', path: 'files/list_folder/get_latest_cursor', access: 'read', resource: 'files' },
      { method: 'POST', path: 'files/get_metadata', access: 'read', resource: 'files' },
      { method: 'POST', path: 'files/list_revisions', access: 'read', resource: 'files' },
      { method: 'POST', path: 'files/search_v2', access: 'read', resource: 'files' },
      { method: 'POST', path: 'files/search/continue_v2', access: 'read', resource: 'files' },
      { method: 'POST', path: 'users/get_current_account', access: 'read', resource: 'users' },
      { method: 'POST', path: 'users/get_space_usage', access: 'read', resource: 'users' },
      { method: 'POST', path: 'sharing/list_shared_links', access: 'read', resource: 'sharing' },
    ],
  },
});
