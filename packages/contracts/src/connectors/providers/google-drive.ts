/** Google Drive (developers.google.com/workspace/drive/api): Google's OAuth, as Google Calendar. */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const googleDrive = defineProvider({
  name: 'google-drive',
  displayName: 'Google Drive',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    clientAuth: 'client_secret_post',
    pkce: true,
    defaultScopes: ['https://www.googleapis.com/auth/drive.readonly'],
    authorizationParams: { access_type: 'offline', prompt: 'consent' },
    refreshTokens: 'static',
    revocation: { url: 'https://oauth2.googleapis.com/revoke', style: 'rfc7009' },
  },
  api: {
    baseUrl: 'https://www.googleapis.com/drive/v3',
    allowedHosts: ['www.googleapis.com'],
    credential: { type: 'bearer' },
  },
  resources: ['files', 'drives', 'about', 'changes', 'permissions'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} files, shared drives, changes and permissions.`,
    overrideParameters: [...METHOD_OVERRIDES, '$httpmethod'],
  },
});
