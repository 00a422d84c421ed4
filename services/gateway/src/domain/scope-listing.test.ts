import { describe, expect, test } from '@jest/globals';
import { endpointsForScopes, expandScopes } from '@pag/contracts';
import { scopeListing } from './scope-listing.ts';

describe('scopeListing', () => {
  test.each([[['full']], [['read', 'chat']], [['services:github:read']], [[]], [['not-a-scope']]])(
    'answers what the contracts do for %j, endpoints also as their JSON text',
    (scopes) => {
      const listing = scopeListing(scopes);
      expect(listing.expanded).toEqual(expandScopes(scopes));
      expect(listing.endpoints).toEqual(endpointsForScopes(scopes));
      expect(JSON.parse(listing.endpointsJson)).toEqual(endpointsForScopes(scopes));
    },
  );

  test('is worked out once per scope set, and apart for each set', () => {
    const first = scopeListing(['read', 'chat']);
    expect(scopeListing(['read', 'chat'])).toBe(first);
    expect(scopeListing(['full'])).not.toBe(first);
    expect(scopeListing(['full']).endpointsJson).not.toEqual(first.endpointsJson);
  });
});
