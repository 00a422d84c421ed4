/**
 * What the named scope sets `professional` and `availability` reach in real connectors: each
 * names `services:{connector}:{resource}:read` for the resources below, nothing else. A test
 * (catalogue.test.ts) checks that every connector and resource named here is in the catalogue.
 *
 * - professional: the owner's own profile: GitHub's `user` (GET /user, the signed-in user),
 *   Microsoft Graph's `profile` (GET /me alone, not /me/messages), Slack's `profile`
 *   (users.profile.get).
 * - availability: when the owner is busy, not what they do: Google Calendar's `freebusy`
 *   (POST /freeBusy) and Microsoft Graph's `schedule` (POST /me/calendar/getSchedule).
 *
 * `read` is every connector's read access (services:*:*:read); see scope-catalogue.ts.
 */
export const SCOPE_SET_RESOURCES = {
  professional: [
    { connector: 'github', resource: 'user' },
    { connector: 'microsoft-365', resource: 'profile' },
    { connector: 'slack', resource: 'profile' },
  ],
  availability: [
    { connector: 'google-calendar', resource: 'freebusy' },
    { connector: 'microsoft-365', resource: 'schedule' },
  ],
} as const;

export function scopeSetGrants(set: keyof typeof SCOPE_SET_RESOURCES): string[] {
  return SCOPE_SET_RESOURCES[set].map(({ connector, resource }) => `services:${connector}:${resource}:read`);
}
