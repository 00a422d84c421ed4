/** Gmail (developers.google.com/workspace/gmail/api): Google's OAuth, as Google Calendar. */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const gmail = defineProvider({
  name: 'gmail',
  displayName: 'Gmail',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    clientAuth: 'client_secret_post',
    pkce: true,
    defaultScopes: ['https://www.googleapis.com/auth/gmail.readonly'],
    authorizationParams: { access_type: 'offline', prompt: 'consent' },
    refreshTokens: 'static',
    revocation: { url: 'https://oauth2.googleapis.com/revoke', style: 'rfc7009' },
  },
  api: {
    baseUrl: 'https://gmail.googleapis.com/gmail/v1',
    allowedHosts: ['gmail.googleapis.com'],
    credential: { type: 'bearer' },
  },
  resources: ['users'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} the mailbox: profile, messages, threads, labels and drafts. Sending and changing labels need write.`,
    overrideParameters: [...METHOD_OVERRIDES, '$httpmethod'],
  },
});
