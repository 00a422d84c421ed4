/** Google Drive (developers.google.com/workspace/drive/api/reference/rest/v3): Google's OAuth (google-oauth.ts). */
import { googleOAuth } from '../google-oauth.ts';
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const googleDrive = defineProvider({
  name: 'google-drive',
  displayName: 'Google Drive',
  auth: googleOAuth(['https://www.googleapis.com/auth/drive.readonly']),
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
