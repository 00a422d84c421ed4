/** Gmail (developers.google.com/workspace/gmail/api/reference/rest): Google's OAuth (google-oauth.ts). */
import { googleOAuth } from '../google-oauth.ts';
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const gmail = defineProvider({
  name: 'gmail',
  displayName: 'Gmail',
  auth: googleOAuth(['https://www.googleapis.com/auth/gmail.readonly']),
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
