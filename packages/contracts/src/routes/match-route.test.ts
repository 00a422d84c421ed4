import { describe, expect, test } from '@jest/globals';
import { matchRoute, requiredScope } from './match-route.ts';
import { RouteTable, routeById } from './route-table.ts';

/** One request per route; the test fails when a route is added without an example. */
const examples: Record<string, string> = {
  discoveryIndex: '/api/v1/',
  discoveryIndexAlias: '/api/v1',
  discoveryIndexAtBase: '/',
  mcp: '/mcp',
  mcpAtBase: '/',
  quickStart: '/api/v1/quick-start',
  capabilities: '/api/v1/capabilities',
  tokenCapabilities: '/api/v1/tokens/me/capabilities',
  gatewayContext: '/api/v1/gateway/context',
  writeMemory: '/api/v1/memory',
  deleteMemory: '/api/v1/memory/mem_123',
  getConversation: '/api/v1/brain/conversations/conv_123',
  knowledgeBase: '/api/v1/brain/knowledge-base',
  chat: '/api/v1/brain/chat',
  listPersonas: '/api/v1/personas',
  listServices: '/api/v1/services',
  proxyGet: '/api/v1/services/github/user/repos',
  proxyPost: '/api/v1/services/github/repos/alice/x/issues',
  proxyPut: '/api/v1/services/github/user/starred/alice/x',
  proxyPatch: '/api/v1/services/github/repos/alice/x',
  proxyDelete: '/api/v1/services/github/user/starred/alice/x',
  identity: '/api/v1/identity',
  listVaultTokens: '/api/v1/vault/tokens',
  listConnectors: '/api/v1/connectors',
  createTrigger: '/api/v1/triggers',
  listTriggers: '/api/v1/triggers',
  getTrigger: '/api/v1/triggers/trg_123',
  runTrigger: '/api/v1/triggers/trg_123/run',
  listTriggerRuns: '/api/v1/triggers/trg_123/runs',
  pauseTrigger: '/api/v1/triggers/trg_123/pause',
  resumeTrigger: '/api/v1/triggers/trg_123/resume',
  deleteTrigger: '/api/v1/triggers/trg_123',
  createHandshake: '/api/v1/handshakes',
  handshakeStatus: '/api/v1/handshakes/hs_1/status',
  registerDevice: '/api/v1/agentic/asc/register',
  openapi: '/openapi.json',
  llms: '/llms.txt',
  authGuide: '/auth.md',
  oauthMetadata: '/.well-known/oauth-authorization-server',
};

const matchedId = (method: string, path: string) => {
  const found = matchRoute(method, path);
  return found !== null && 'route' in found ? found.route.id : found;
};

describe('matchRoute', () => {
  test.each(RouteTable.map((route) => [route.id, route.method] as const))(
    'matches %s (%s) by its example',
    (id, method) => {
      expect(examples[id]).toBeDefined();
      expect(matchedId(method, examples[id]!)).toBe(id);
    },
  );

  test('both /api/v1 and /api/v1/ are the index; no other path is slash-normalised', () => {
    expect(matchedId('GET', '/api/v1')).toBe('discoveryIndexAlias');
    expect(matchedId('GET', '/api/v1/')).toBe('discoveryIndex');
    expect(matchRoute('GET', '/api/v1/quick-start/')).toBeNull();
    expect(matchRoute('GET', '/api/v1//quick-start')).toBeNull();
    expect(matchRoute('GET', '/api/v1/services/')).toBeNull();
  });

  test('a doubled prefix matches nothing', () => {
    expect(matchRoute('GET', '/api/v1/api/v1/quick-start')).toBeNull();
    expect(matchRoute('GET', '/api/v1/api/v1/')).toBeNull();
    expect(matchRoute('POST', '/api/v1/api/v1/handshakes')).toBeNull();
  });

  test('paths are case-sensitive and unknown paths match nothing', () => {
    expect(matchRoute('GET', '/API/V1/quick-start')).toBeNull();
    expect(matchRoute('GET', '/api/v2/quick-start')).toBeNull();
    expect(matchRoute('GET', '/nope')).toBeNull();
  });

  test('a known path with another method reports the allowed methods', () => {
    expect(matchRoute('DELETE', '/api/v1/triggers')).toEqual({ methodMismatch: ['GET', 'POST', 'HEAD'] });
    expect(matchRoute('GET', '/api/v1/handshakes')).toEqual({ methodMismatch: ['POST'] });
    expect(matchRoute('GET', '/api/v1/triggers/t1/run')).toEqual({ methodMismatch: ['POST'] });
    expect(matchRoute('OPTIONS', '/api/v1/services/github/x')).toEqual({
      methodMismatch: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'],
    });
  });

  test('HEAD is answered by the GET route', () => {
    expect(matchedId('HEAD', '/api/v1/quick-start')).toBe('quickStart');
  });

  test('the query string is not part of the path', () => {
    expect(matchedId('GET', '/api/v1/quick-start?x=1')).toBe('quickStart');
    expect(matchRoute('GET', '/api/v1/services/github/search/issues?q=is%3Aopen')).toMatchObject({
      params: { service: 'github', path: 'search/issues' },
    });
  });

  test('parameters are decoded; the rest of the path stays as sent', () => {
    expect(matchRoute('GET', '/api/v1/handshakes/hs%5F1/status')).toMatchObject({
      params: { handshakeId: 'hs_1' },
    });
    expect(matchRoute('GET', '/api/v1/services/git%68ub/a%20b/c')).toMatchObject({
      params: { service: 'github', path: 'a%20b/c' },
    });
    expect(matchRoute('GET', '/api/v1/services/gitlab/projects/group%2Fproject')).toMatchObject({
      params: { service: 'gitlab', path: 'projects/group%2Fproject' },
    });
    expect(matchRoute('GET', '/api/v1/services/github/')).toMatchObject({
      params: { service: 'github', path: '' },
    });
  });

  test.each([
    '/api/v1/services/../secrets',
    '/api/v1/services/%2e%2e/secrets',
    '/api/v1/services/git%2Fhub/x',
    '/api/v1/services/git%5Chub/x',
    '/api/v1/services/GitHub/x',
    '/api/v1/services/.github/x',
    '/api/v1/services/github/../../vault/tokens',
    '/api/v1/services/github/repos/..',
    '/api/v1/services/github/./repos',
    '/api/v1/services/github/%2E%2E/admin',
    '/api/v1/services/github/a%2F..%2Fadmin',
    '/api/v1/services/github/a%5C..%5Cadmin',
    '/api/v1/services/github/a\\..\\admin',
    '/api/v1/services/github/x%00y',
    '/api/v1/services/github/%E0%A4%A',
    '/api/v1/services/github/https://evil.example/steal',
    '/api/v1/services/github//evil.example/steal',
    '/api/v1/services/github/https%3A%2F%2Fevil.example%2Fsteal',
    '/api/v1/services/github/repos//x',
    '/api/v1/services/github/a%2F%2Fb',
    '/api/v1/handshakes/..%2Fhs/status',
    '/api/v1/handshakes/%2e%2e/status',
    '/api/v1/handshakes/%ZZ/status',
    '/api/v1/triggers/a%2Fb/run',
  ])('refuses %s', (path) => {
    expect(matchRoute('GET', path)).toBeNull();
  });
});

describe('requiredScope', () => {
  const scopeOf = (method: string, path: string) => {
    const found = matchRoute(method, path);
    if (found === null || !('route' in found)) throw new Error(`no route for ${method} ${path}`);
    return requiredScope(found.route, found.params, method);
  };

  test('the proxy needs the service scope, narrowed to the resource of the first segment', () => {
    expect(scopeOf('GET', '/api/v1/services/calendar/availability/today')).toBe(
      'services:calendar:availability:read',
    );
    expect(scopeOf('HEAD', '/api/v1/services/calendar/availability')).toBe(
      'services:calendar:availability:read',
    );
    expect(scopeOf('POST', '/api/v1/services/github/repos/a/b/issues')).toBe('services:github:repos:write');
    expect(scopeOf('DELETE', '/api/v1/services/github/user/starred/a/b')).toBe('services:github:user:write');
  });

  test('without a valid resource name the whole service scope is needed', () => {
    expect(scopeOf('GET', '/api/v1/services/github/')).toBe('services:github:read');
    expect(scopeOf('GET', '/api/v1/services/github/Users/x')).toBe('services:github:read');
    expect(scopeOf('PUT', '/api/v1/services/gitlab/group%2Fproject/x')).toBe('services:gitlab:write');
  });

  test('fixed scopes and no scope', () => {
    expect(scopeOf('GET', '/api/v1/brain/knowledge-base')).toBe('knowledge');
    expect(scopeOf('POST', '/api/v1/brain/chat')).toBe('chat');
    expect(scopeOf('GET', '/api/v1/vault/tokens')).toBe('services:read');
    expect(scopeOf('POST', '/api/v1/memory')).toBeNull();
    expect(scopeOf('GET', '/api/v1/quick-start')).toBeNull();
  });

  test('defaults to the route method', () => {
    expect(requiredScope(routeById('proxyPatch'), { service: 'x', path: 'y' })).toBe('services:x:y:write');
  });
});

describe('RouteTable', () => {
  test('ids are unique camelCase and each method+path appears once', () => {
    const ids = RouteTable.map((route) => route.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    const keys = RouteTable.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('public routes carry no scope; NATS routes name a subject of their service', () => {
    for (const route of RouteTable) {
      if (route.auth === 'none') expect(route.scope).toBeNull();
      if (route.subject !== null) expect(route.subject.split('.')[0]).toBe(route.service);
    }
  });
});
