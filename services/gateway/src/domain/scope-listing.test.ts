import { describe, expect, test } from '@jest/globals';
import { endpointsForScopes, expandScopes, routeById } from '@pag/contracts';
import type { DirectorySnapshot } from '@pag/kit';
import { scopeListing } from './scope-listing.ts';

const everything: DirectorySnapshot = {
  version: 1,
  running: new Set(['auth', 'brain', 'proxy', 'trigger', 'audit', 'gateway']),
};

describe('scopeListing', () => {
  test.each([[['full']], [['read', 'chat']], [['services:github:read']], [[]], [['not-a-scope']]])(
    'lists only what the contracts allow for %j, endpoints also as their JSON text',
    (scopes) => {
      const listing = scopeListing(scopes, everything);
      const allowed = endpointsForScopes(scopes)
        .filter((endpoint) => endpoint.allowed)
        .map((endpoint) => ({ ...endpoint, available: true }));
      expect(listing.expanded).toEqual(expandScopes(scopes));
      expect(listing.endpoints).toEqual(allowed);
      expect(JSON.parse(listing.endpointsJson.toString())).toEqual(allowed);
    },
  );

  test('never lists an endpoint the scopes do not allow', () => {
    const ids = scopeListing(['knowledge'], everything).endpoints.map((endpoint) => endpoint.id);
    expect(ids).toContain('knowledgeBase');
    expect(ids).not.toContain('chat');
    expect(ids).not.toContain('getConversation');
  });

  test('marks the endpoints of a service that is not running, with the reason', () => {
    const noBrain: DirectorySnapshot = { version: 2, running: new Set(['auth', 'proxy', 'trigger']) };
    const { endpoints } = scopeListing(['full'], noBrain);
    expect(endpoints.find((endpoint) => endpoint.id === 'chat')).toMatchObject({
      available: false,
      reason: 'The brain service is not running.',
    });
    expect(endpoints.find((endpoint) => endpoint.id === 'tokenCapabilities')).toMatchObject({
      available: true,
    });
    for (const endpoint of endpoints.filter((endpoint) => !endpoint.available))
      expect(routeById(endpoint.id).service).toBe('brain');
  });

  test('is worked out once per scope set and directory version, and apart for each', () => {
    const first = scopeListing(['read', 'chat'], everything);
    expect(scopeListing(['read', 'chat'], everything)).toBe(first);
    expect(scopeListing(['full'], everything)).not.toBe(first);
    expect(scopeListing(['full'], everything).endpointsJson).not.toEqual(first.endpointsJson);
    const later: DirectorySnapshot = { version: everything.version + 10, running: new Set() };
    const after = scopeListing(['read', 'chat'], later);
    expect(after).not.toBe(first);
    expect(after.endpoints.some((endpoint) => !endpoint.available)).toBe(true);
    // Another gateway's directory at the same version number but another set: never mixed up.
    const elsewhere: DirectorySnapshot = { version: everything.version, running: new Set(['auth']) };
    expect(scopeListing(['read', 'chat'], elsewhere).endpoints).not.toEqual(first.endpoints);
    expect(scopeListing(['read', 'chat'], everything)).toBe(first);
  });
});
