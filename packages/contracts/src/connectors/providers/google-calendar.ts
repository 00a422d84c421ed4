/** Google Calendar (developers.google.com/workspace/calendar/api/v3/reference): Google's OAuth (google-oauth.ts). */
import { googleOAuth } from '../google-oauth.ts';
import { defineProvider, METHOD_OVERRIDES, REST_READ } from '../provider-definition.ts';

export const googleCalendar = defineProvider({
  name: 'google-calendar',
  displayName: 'Google Calendar',
  auth: googleOAuth(['https://www.googleapis.com/auth/calendar.readonly']),
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
