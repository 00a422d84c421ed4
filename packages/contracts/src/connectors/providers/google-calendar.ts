/** Google Calendar (developers.google.com/identity/protocols/oauth2/web-server): a refresh token only with access_type=offline (prompt=consent gets one again on reconnect); it does not rotate. */
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const googleCalendar = defineProvider({
  name: 'google-calendar',
  displayName: 'Google Calendar',
  auth: {
    type: 'oauth2',
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    clientAuth: 'client_secret_post',
    pkce: true,
    defaultScopes: ['https://www.googleapis.com/auth/calendar.readonly'],
    authorizationParams: { access_type: 'offline', prompt: 'consent' },
    refreshTokens: 'static',
    revocation: { url: 'https://oauth2.googleapis.com/revoke', style: 'rfc7009' },
  },
  api: {
    baseUrl: 'https://www.googleapis.com/calendar/v3',
    allowedHosts: ['www.googleapis.com'],
    credential: { type: 'bearer' },
  },
  resources: ['calendars', 'users', 'freebusy', 'colors'],
  access: {
    style: 'rest',
    readAccess: `${REST_READ} calendars, calendar lists, events and colors; and the free/busy query (POST /freeBusy, sub-scope freebusy).`,
    // Google's APIs take the method from X-HTTP-Method-Override and from `$httpMethod` as well.
    overrideParameters: [...METHOD_OVERRIDES, '$httpmethod'],
    // The free/busy query is a POST that only reads: when the owner is busy, nothing else.
    operations: [{ method: 'POST', path: 'freeBusy', access: 'read', resource: 'freebusy' }],
  },
});
