import { describe, expect, test } from '@jest/globals';
import { matchRoute, requiredScope } from '../routes/match-route.ts';
import { expandScopes, scopeGrants } from '../scopes/scope-matcher.ts';
import { PROVIDERS, providerNamed } from './catalogue.ts';
import { accessOf } from './connector-access.ts';
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

/** The OAuth part of a catalogue definition (the test fails if the connector is not OAuth). */
function oauthOf(name: string) {
  const provider = providerNamed(name);
  if (provider?.auth.type !== 'oauth2') throw new Error(`${name} is not an OAuth connector`);
  return provider.auth;
}

describe("what each provider's documentation asks of its definition", () => {
  test('refresh tokens: what each provider needs before it issues one, and whether it rotates', () => {
    for (const google of ['google-calendar', 'gmail', 'google-drive']) {
      expect(oauthOf(google)).toMatchObject({
        authorizationParams: { access_type: 'offline', prompt: 'consent' },
        refreshTokens: 'static',
      });
    }
    expect(oauthOf('microsoft-365').defaultScopes).toContain('offline_access');
    expect(oauthOf('atlassian').defaultScopes).toContain('offline_access');
    expect(oauthOf('atlassian')).toMatchObject({
      authorizationParams: { audience: 'api.atlassian.com' },
      refreshTokens: 'rotating',
    });
    expect(oauthOf('dropbox')).toMatchObject({
      authorizationParams: { token_access_type: 'offline' },
      refreshTokens: 'static',
    });
    expect(oauthOf('notion').refreshTokens).toBe('rotating');
    expect(oauthOf('github').refreshTokens).toBe('none');
  });

  test("the token request: Notion's Basic and JSON, Slack's user token, everyone else RFC 6749's form", () => {
    expect(oauthOf('notion')).toMatchObject({
      clientAuth: 'client_secret_basic',
      tokenRequestFormat: 'json',
      pkce: false,
    });
    expect(oauthOf('slack')).toMatchObject({
      clientAuth: 'client_secret_basic',
      scopeParameter: 'user_scope',
      scopeSeparator: ',',
      tokenAnswerMember: 'authed_user',
    });
    // users.profile.get (the `professional` set's Slack resource) needs it.
    expect(oauthOf('slack').defaultScopes).toContain('users.profile:read');
    expect(oauthOf('spotify').clientAuth).toBe('client_secret_basic');
    expect(oauthOf('linear').scopeSeparator).toBe(',');
    for (const provider of PROVIDERS) {
      if (provider.auth.type !== 'oauth2' || provider.name === 'notion') continue;
      expect([provider.name, provider.auth.tokenRequestFormat]).toEqual([provider.name, 'form']);
    }
  });

  test('revocation is called the way each provider takes it', () => {
    expect(oauthOf('github').revocation).toEqual({
      url: 'https://api.github.com/applications/{client_id}/grant',
      style: 'delete_grant',
    });
    expect(oauthOf('slack').revocation?.style).toBe('bearer');
    expect(oauthOf('dropbox').revocation?.style).toBe('bearer');
    for (const name of ['gmail', 'notion', 'linear']) expect(oauthOf(name).revocation?.style).toBe('rfc7009');
    for (const name of ['microsoft-365', 'atlassian', 'spotify']) expect(oauthOf(name).revocation).toBeNull();
  });

  test('the headers an API requires are sent by default', () => {
    expect(providerNamed('notion')?.api.defaultHeaders).toHaveProperty('notion-version');
    expect(providerNamed('github')?.api.defaultHeaders).toMatchObject({
      'user-agent': expect.any(String),
      accept: 'application/vnd.github+json',
      'x-github-api-version': '2022-11-28',
    });
  });

  test('a read-only token cannot write: a POST reads only where the definition lists the call', () => {
    // GraphQL: a query is a POST like a mutation, so both need write.
    expect(accessOf('github', 'POST', 'graphql')).toBe('write');
    expect(accessOf('linear', 'POST', 'graphql')).toBe('write');
    expect(scopeOf('POST', '/api/v1/services/notion/search')).toBe('services:notion:search:read');
    expect(accessOf('notion', 'PATCH', 'pages/p1')).toBe('write');
    expect(accessOf('notion', 'POST', 'pages')).toBe('write');
    expect(scopeOf('POST', '/api/v1/services/dropbox/files/list_folder')).toBe('services:dropbox:files:read');
    for (const path of [
      'files/delete_v2',
      'files/upload',
      'files/move_v2',
      'files/get_temporary_link',
      'files/list_folder/',
      'sharing/create_shared_link_with_settings',
    ]) {
      expect([path, accessOf('dropbox', 'POST', path)]).toEqual([path, 'write']);
    }
    // Notion's and Jira's queries read, with any one identifier where the path has `{id}`.
    expect(
      scopeOf('POST', '/api/v1/services/notion/databases/2f26ee68-df30-4f84-aad5-8dd9f34f6c0b/query'),
    ).toBe('services:notion:databases:read');
    expect(scopeOf('POST', '/api/v1/services/notion/data_sources/7b6f2f3d0f4a4d3c/query')).toBe(
      'services:notion:data_sources:read',
    );
    expect(accessOf('atlassian', 'POST', 'ex/jira/11223344-aabb/rest/api/3/search/jql')).toBe('read');
    expect(accessOf('atlassian', 'POST', 'ex/jira/11223344-aabb/rest/api/3/issue')).toBe('write');
    for (const id of ['', '.', '..', 'a%2Fb', 'a/b', 'a.b', '%2e%2e']) {
      expect([id, accessOf('notion', 'POST', `databases/${id}/query`)]).toEqual([id, 'write']);
    }
    expect(accessOf('notion', 'POST', 'databases/d1/query/x')).toBe('write');
    expect(accessOf('notion', 'POST', 'databases/d1')).toBe('write');
    // No listed read names a call that changes something.
    for (const provider of PROVIDERS) {
      for (const operation of provider.access.operations.filter((op) => op.access === 'read')) {
        expect(operation.path).not.toMatch(/delete|create|update|upload|move|copy|send|revoke|remove|set/i);
      }
    }
  });
});
