import { describe, expect, test } from '@jest/globals';
import { matchRoute, requiredScope } from '../routes/match-route.ts';
import { expandScopes, scopeGrants } from '../scopes/scope-matcher.ts';
import { PROVIDERS, providerNamed } from './catalogue.ts';
import { providerSchema } from './provider-definition.ts';
import { SCOPE_SET_RESOURCES } from './scope-sets.ts';

const scopeOf = (method: string, path: string) => {
  const found = matchRoute(method, path);
  if (found === null || !('route' in found)) throw new Error(`no route for ${method} ${path}`);
  return requiredScope(found.route, found.params, method);
};

describe('the connector catalogue', () => {
  test('has the providers the issue names, each valid, with real https endpoints', () => {
    expect(PROVIDERS.map((provider) => provider.name)).toEqual(
      expect.arrayContaining([
        'github',
        'google-calendar',
        'gmail',
        'google-drive',
        'slack',
        'notion',
        'microsoft-365',
        'linear',
        'spotify',
        'dropbox',
        'atlassian',
        'stripe',
        'figma',
      ]),
    );
    for (const provider of PROVIDERS) {
      expect(providerSchema().safeParse(provider).success).toBe(true);
      if (provider.auth.type === 'oauth2') {
        for (const url of [provider.auth.authorizationUrl, provider.auth.tokenUrl]) {
          expect(new URL(url).protocol).toBe('https:');
        }
      }
    }
    expect(providerNamed('stripe')?.auth.type).toBe('api_key');
    expect(providerNamed('figma')?.api.credential).toEqual({ type: 'header', name: 'x-figma-token' });
    expect(providerNamed('__proto__')).toBeUndefined();
  });

  test('every resource a named scope set names exists in its connector', () => {
    for (const [set, entries] of Object.entries(SCOPE_SET_RESOURCES)) {
      for (const { connector, resource } of entries) {
        expect([set, connector, providerNamed(connector)?.resources.includes(resource)]).toEqual([
          set,
          connector,
          true,
        ]);
      }
    }
  });

  test('availability and professional reach the calls they are for, and nothing beside', () => {
    const availability = expandScopes(['availability']);
    expect(
      scopeGrants(availability, scopeOf('POST', '/api/v1/services/google-calendar/freeBusy') ?? ''),
    ).toBe(true);
    expect(
      scopeGrants(
        availability,
        scopeOf('POST', '/api/v1/services/microsoft-365/me/calendar/getSchedule') ?? '',
      ),
    ).toBe(true);
    expect(
      scopeGrants(
        ['availability'],
        scopeOf('GET', '/api/v1/services/google-calendar/calendars/x/events') ?? '',
      ),
    ).toBe(false);
    expect(scopeGrants(['professional'], scopeOf('GET', '/api/v1/services/github/user') ?? '')).toBe(true);
    expect(scopeGrants(['professional'], scopeOf('GET', '/api/v1/services/microsoft-365/me') ?? '')).toBe(
      true,
    );
    expect(
      scopeGrants(['professional'], scopeOf('GET', '/api/v1/services/microsoft-365/me/messages') ?? ''),
    ).toBe(false);
    expect(
      scopeGrants(['professional'], scopeOf('GET', '/api/v1/services/slack/users.profile.get') ?? ''),
    ).toBe(true);
    expect(scopeGrants(['professional'], scopeOf('GET', '/api/v1/services/github/repos/o/r') ?? '')).toBe(
      false,
    );
  });

  test('a deployment connector must use https, unless loopback is allowed for tests', () => {
    const custom = {
      name: 'acme',
      displayName: 'Acme',
      auth: {
        type: 'oauth2',
        authorizationUrl: 'http://127.0.0.1:4000/authorize',
        tokenUrl: 'http://127.0.0.1:4000/token',
        clientAuth: 'client_secret_post',
        pkce: true,
        defaultScopes: [],
        refreshTokens: 'static',
        revocation: null,
      },
      api: {
        baseUrl: 'http://127.0.0.1:4000/api',
        allowedHosts: ['127.0.0.1:4000'],
        credential: { type: 'bearer' },
      },
      resources: [],
      access: { style: 'rest', readAccess: 'GET reads.', overrideParameters: [] },
    };
    expect(providerSchema().safeParse(custom).success).toBe(false);
    expect(providerSchema({ allowLoopback: true }).safeParse(custom).success).toBe(true);
    const elsewhere = { ...custom, auth: { ...custom.auth, tokenUrl: 'http://example.com/token' } };
    expect(providerSchema({ allowLoopback: true }).safeParse(elsewhere).success).toBe(false);
  });
});
