import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AGENT_CONDUCT_RULE, DiscoveryIndex, PublicCapabilities, QuickStart } from '@pag/contracts';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

/** The paths of the spec's endpoint table, in the one template style every document shows. */
const SPEC_ENDPOINTS = [
  'GET /api/v1/',
  'GET /api/v1/quick-start',
  'GET /api/v1/capabilities',
  'GET /api/v1/tokens/me/capabilities',
  'GET /api/v1/gateway/context',
  'POST /api/v1/memory',
  'GET /api/v1/brain/knowledge-base',
  'POST /api/v1/brain/chat',
  'GET /api/v1/personas',
  'GET /api/v1/services',
  'GET /api/v1/services/{service}/{path}',
  'GET /api/v1/identity',
  'GET /api/v1/vault/tokens',
  'GET /api/v1/connectors',
  'POST /api/v1/triggers',
  'GET /api/v1/triggers',
  'POST /api/v1/triggers/{id}/run',
  'POST /api/v1/handshakes',
  'GET /api/v1/handshakes/{handshakeId}/status',
  'POST /api/v1/agentic/asc/register',
  'GET /openapi.json',
  'GET /llms.txt',
  'GET /auth.md',
  'GET /.well-known/oauth-authorization-server',
];

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startTestGateway({ PUBLIC_URL: 'https://gateway.example.test' });
});
afterAll(async () => {
  await gateway[Symbol.asyncDispose]();
});

async function getJson(path: string): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${gateway.url}${path}`, { redirect: 'manual' });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

describe('discovery index', () => {
  test.each(['/api/v1/', '/api/v1', '/'])('GET %s answers the index without a redirect', async (path) => {
    const { status, body } = await getJson(path);
    expect(status).toBe(200);
    const index = DiscoveryIndex.parse(body);
    expect(index.important).toBe(AGENT_CONDUCT_RULE);
    expect(index.version).toMatch(/^\d+(\.\d+)+$/);
    expect(index.authentication.type).toBe('Bearer');
    expect(index.authentication.hint).toContain('/api/v1/handshakes');
    expect(index.documentation).toEqual({
      openapi: '/openapi.json',
      quickStart: '/api/v1/quick-start',
      llms: '/llms.txt',
    });
  });

  test('endpoints name every endpoint of the spec', async () => {
    const index = DiscoveryIndex.parse((await getJson('/api/v1/')).body);
    const listed = new Set(Object.values(index.endpoints));
    for (const endpoint of SPEC_ENDPOINTS) expect(listed).toContain(endpoint);
  });
});

describe('quick-start', () => {
  test('is public and built from PUBLIC_URL', async () => {
    const { status, body } = await getJson('/api/v1/quick-start');
    expect(status).toBe(200);
    const guide = QuickStart.parse(body);
    expect(guide.authenticated).toBe(false);
    expect(guide.important).toBe(AGENT_CONDUCT_RULE);
    expect(guide.canonicalBaseUrl).toBe('https://gateway.example.test');
    expect(guide.urlWarning).toContain('https://gateway.example.test');
    expect(guide.urlWarning).toMatch(/redirect/i);
    expect(guide.urlWarning).toContain('/api/v1/api/v1');
    const noToken = guide.noTokenFlow.steps.join(' ');
    expect(noToken).toContain('POST /api/v1/handshakes');
    // Both deliveries: the agent collecting its token with its proof, and the owner sharing it.
    expect(noToken).toContain('"codeChallenge": "<challenge>", "codeChallengeMethod": "S256"');
    expect(noToken).toContain('Handshake-Verifier: <verifier>');
    expect(noToken).toContain('openssl rand -hex 32');
    expect(noToken).toContain('Without codeChallenge the owner is shown the token');
    expect(guide.steps.length).toBeGreaterThan(2);
  });
});

describe('capabilities', () => {
  test('lists the scope model, the ways to get a token and the kinds of limits', async () => {
    const { status, body } = await getJson('/api/v1/capabilities');
    expect(status).toBe(200);
    const capabilities = PublicCapabilities.parse(body);
    const scopes = capabilities.scopes.map((entry) => entry.scope);
    for (const scope of [
      'full',
      'services:*',
      'services:read',
      'knowledge',
      'chat',
      'read',
      'professional',
      'availability',
    ]) {
      expect(scopes).toContain(scope);
    }
    expect(capabilities.registrationMethods).toEqual([
      'oauth2_authorization_code',
      'dashboard_token',
      'asc_device_key',
    ]);
    expect(capabilities.limits.map((limit) => limit.kind)).toEqual(
      expect.arrayContaining(['daily', 'monthly']),
    );
  });
});

describe('llms.txt', () => {
  test('is a plain-text guide with absolute URLs from PUBLIC_URL', async () => {
    const response = await fetch(`${gateway.url}/llms.txt`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    expect(text).toContain(AGENT_CONDUCT_RULE);
    expect(text).toContain('https://gateway.example.test/api/v1/gateway/context');
    expect(text).toContain('https://gateway.example.test/api/v1/handshakes');
    expect(text).toContain('`Handshake-Verifier: <VERIFIER>`');
    expect(text).toContain('"codeChallengeMethod": "S256"');
    expect(text).toContain('Without `codeChallenge`, the owner shares the token with you instead.');
  });
});

describe('openapi.json', () => {
  test('describes every endpoint of the spec, served from PUBLIC_URL', async () => {
    const { status, body } = await getJson('/openapi.json');
    expect(status).toBe(200);
    const document = body as {
      openapi: string;
      servers: { url: string }[];
      paths: Record<string, Record<string, unknown>>;
    };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.servers[0]?.url).toBe('https://gateway.example.test');
    for (const endpoint of SPEC_ENDPOINTS) {
      const [method, path] = endpoint.split(' ') as [string, string];
      const openApiPath = path.replace(/:(\w+)/g, '{$1}').replace(/\*(\w+)$/, '{$1}');
      expect(document.paths[openApiPath]?.[method.toLowerCase()]).toBeDefined();
    }
  });
});
