/**
 * Microsoft 365 through Microsoft Graph. Checked against
 * learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow (as mirrored at
 * docs.azure.cn): the /common endpoints (work, school and personal accounts), PKCE, the client
 * secret in the body, offline_access for a refresh token, and each refresh answers a new one. Microsoft offers
 * no per-token revocation endpoint (Graph's revokeSignInSessions ends every session of the user,
 * not ours alone); the owner removes the app at myapps.microsoft.com or account.live.com.
 * POST /$batch can carry writes and needs write.
 */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const microsoft365 = defineProvider({
  name: 'microsoft-365',
  displayName: 'Microsoft 365',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    clientAuth: 'client_secret_post',
    pkce: true,
    defaultScopes: ['offline_access', 'User.Read', 'Calendars.Read', 'Mail.Read'],
    refreshTokens: 'rotating',
    revocation: null,
  },
  api: {
    baseUrl: 'https://graph.microsoft.com/v1.0',
    allowedHosts: ['graph.microsoft.com'],
    credential: { type: 'bearer' },
  },
  resources: ['me', 'users', 'groups', 'sites', 'drives', 'profile', 'schedule'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} the owner (me), mail, calendars, files, users and groups; and the schedule query (POST /me/calendar/getSchedule, sub-scope schedule).`,
    overrideParameters: [...METHOD_OVERRIDES, '$httpmethod'],
    operations: [
      // GET /me alone is the owner's profile (professional); /me/messages stays resource `me`.
      { method: 'GET', path: 'me', access: 'read', resource: 'profile' },
      { method: 'POST', path: 'me/calendar/getSchedule', access: 'read', resource: 'schedule' },
    ],
  },
});
