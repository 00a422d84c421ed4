import { describe, expect, test } from '@jest/globals';
import { compileErrors, validate } from '@readme/openapi-parser';
import { OAUTH_ROUTES } from '../routes/oauth-routes.ts';
import { RouteTable } from '../routes/route-table.ts';
import { buildOpenApiDocument, type OpenApiDocument, type OpenApiOptions } from './build-openapi.ts';
import type { JsonObject } from './components.ts';
import { OAuthOperations } from './oauth-operations.ts';

/** The spec's endpoint table, copied literally (method, path); null where the spec gives no method. */
const SPEC_ENDPOINTS: ReadonlyArray<readonly [string | null, string]> = [
  ['GET', '/api/v1/'],
  ['GET', '/api/v1/quick-start'],
  ['GET', '/api/v1/capabilities'],
  ['GET', '/api/v1/tokens/me/capabilities'],
  ['GET', '/api/v1/gateway/context'],
  ['POST', '/api/v1/memory'],
  ['GET', '/api/v1/brain/knowledge-base'],
  ['POST', '/api/v1/brain/chat'],
  ['GET', '/api/v1/personas'],
  ['GET', '/api/v1/services'],
  ['GET', '/api/v1/services/:service/*'],
  ['GET', '/api/v1/identity'],
  ['GET', '/api/v1/vault/tokens'],
  ['GET', '/api/v1/connectors'],
  ['POST', '/api/v1/triggers'],
  ['GET', '/api/v1/triggers'],
  ['POST', '/api/v1/triggers/:id/run'],
  ['POST', '/api/v1/handshakes'],
  ['GET', '/api/v1/handshakes/:handshakeId/status'],
  [null, '/api/v1/agentic/asc/register'],
  ['GET', '/openapi.json'],
  ['GET', '/llms.txt'],
  ['GET', '/auth.md'],
  ['GET', '/.well-known/oauth-authorization-server'],
];

/** Spec notation to OpenAPI: `:name` → `{name}`, the unnamed rest `*` → our `{path}`. */
const toOpenApi = (path: string) => path.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}');

const options: OpenApiOptions = { serverUrl: 'https://gateway.example.com', version: '1.0.0' };
const build = () => buildOpenApiDocument(options);
type Operation = JsonObject & { operationId: string; security: JsonObject[]; responses: JsonObject };
const operations = (doc: OpenApiDocument): Operation[] =>
  Object.values(doc.paths as Record<string, Record<string, Operation>>).flatMap((item) =>
    Object.values(item),
  );

describe('buildOpenApiDocument', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    // validate what is served (the JSON text); it dereferences its argument in place
    const served: Parameters<typeof validate>[0] = JSON.parse(JSON.stringify(build()));
    const result = await validate(served);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  test('has every path of the spec endpoint table with its method', () => {
    const paths = build().paths as Record<string, Record<string, unknown>>;
    for (const [method, path] of SPEC_ENDPOINTS) {
      const item = paths[toOpenApi(path)];
      expect({ path, present: item !== undefined }).toEqual({ path, present: true });
      if (method !== null)
        expect({ path, method, present: item?.[method.toLowerCase()] !== undefined }).toMatchObject({
          present: true,
        });
    }
  });

  test('also serves the index without its trailing slash', () => {
    expect(build().paths).toHaveProperty(['/api/v1', 'get']);
  });

  test('has one operation per route and per OAuth endpoint, with unique camelCase operationIds', () => {
    const ids = operations(build()).map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(
      [...RouteTable.map((route) => route.id), ...OAuthOperations.map((op) => op.id)].sort(),
    );
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
  });

  test('describes the OAuth endpoints the auth service serves, with form bodies and OAuth errors', () => {
    const paths = build().paths as Record<string, Record<string, Operation>>;
    for (const name of [
      'authorization',
      'token',
      'registration',
      'revocation',
      'introspection',
      'jwks',
    ] as const)
      expect({ name, described: paths[OAUTH_ROUTES[name]] !== undefined }).toEqual({ name, described: true });
    const token = paths[OAUTH_ROUTES.token]?.post;
    expect(token?.requestBody).toMatchObject({
      content: {
        'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/OAuthTokenRequest' } },
      },
    });
    expect(token?.responses).toMatchObject({
      '400': {
        content: {
          'application/json': {
            schema: {
              allOf: [
                { $ref: '#/components/schemas/OAuthError' },
                { properties: { error: { enum: expect.arrayContaining(['invalid_grant']) } } },
              ],
            },
          },
        },
      },
      '401': {},
      '503': {},
    });
    for (const path of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/v1',
      '/.well-known/oauth-protected-resource/mcp',
    ])
      expect({ path, get: paths[path]?.get !== undefined }).toEqual({ path, get: true });
  });

  test('shows every path in one template style and carries no internal notes', () => {
    const doc = build();
    for (const path of Object.keys(doc.paths)) expect(path).not.toMatch(/[:*]/);
    const text = JSON.stringify(doc);
    expect(text).not.toMatch(/\/:[A-Za-z]|\*path|our decision|shape:/i);
  });

  test('bearer routes name their scope; public routes have no security', () => {
    const byId = new Map(operations(build()).map((op) => [op.operationId, op]));
    expect(byId.get('knowledgeBase')).toMatchObject({
      'x-required-scope': 'knowledge',
      security: [{ bearerAuth: [] }, { oauth2: ['knowledge'] }],
    });
    expect(byId.get('proxyPost')).toMatchObject({
      'x-required-scope': 'services:{service}:{resource}:write',
      security: [{ bearerAuth: [] }, { oauth2: ['services:{name}:write'] }],
    });
    expect(byId.get('proxyGet')).toMatchObject({
      'x-required-scope': 'services:{service}:{resource}:{access}',
      security: [
        { bearerAuth: [] },
        { oauth2: ['services:{name}:read'] },
        { oauth2: ['services:{name}:write'] },
      ],
    });
    expect(byId.get('proxyGet')?.description).toContain('chat.postMessage');
    expect(byId.get('knowledgeBase')?.description).toContain('`knowledge`');
    expect(byId.get('createHandshake')).toMatchObject({ security: [], 'x-required-scope': null });
    expect(byId.get('createTrigger')).toMatchObject({ 'x-plan': ['pro', 'heavy'] });
  });

  test('documents each status a route can answer, with the codes of that status', () => {
    const byId = new Map(operations(build()).map((op) => [op.operationId, op]));
    const codes = (id: string, status: string) =>
      (
        (byId.get(id)!.responses[status] as JsonObject | undefined)?.content as
          | {
              'application/json': {
                schema: {
                  allOf: [
                    JsonObject,
                    { properties: { error: { properties: { code: { enum: string[] } } } } },
                  ];
                };
              };
            }
          | undefined
      )?.['application/json'].schema.allOf[1].properties.error.properties.code.enum;
    expect(Object.keys(byId.get('chat')!.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '429',
      '500',
      '502',
      '503',
      '504',
    ]);
    expect(codes('chat', '400')).toEqual(
      expect.arrayContaining(['INVALID_REQUEST', 'MALFORMED_JSON', 'TOKEN_IN_QUERY']),
    );
    expect(codes('chat', '429')).toEqual(expect.arrayContaining(['USAGE_LIMIT_EXCEEDED', 'RATE_LIMITED']));
    expect(codes('proxyGet', '409')).toEqual(['SERVICE_NOT_CONNECTED']);
    expect(codes('proxyGet', '400')).toEqual(
      expect.arrayContaining(['BODY_NOT_ALLOWED', 'METHOD_OVERRIDE_REFUSED']),
    );
    expect(codes('registerDevice', '409')).toEqual(['CONFLICT']);
    expect(codes('handshakeStatus', '403')).toEqual(['HANDSHAKE_PROOF_MISMATCH']);
    expect(codes('createTrigger', '403')).toEqual(
      expect.arrayContaining(['PLAN_REQUIRED', 'AGENT_REQUIRED', 'INSUFFICIENT_SCOPE']),
    );
    // A public route answered by the gateway itself: no token, no bus, no third party.
    expect(Object.keys(byId.get('quickStart')!.responses).sort()).toEqual(['200', '400', '500']);
    expect(byId.get('chat')!.responses['401']).toMatchObject({ headers: { 'WWW-Authenticate': {} } });
    expect(byId.get('chat')!.responses['403']).toMatchObject({ headers: { 'WWW-Authenticate': {} } });
    expect(byId.get('chat')!.responses['429']).toMatchObject({
      headers: { 'Retry-After': {}, RateLimit: {}, 'RateLimit-Policy': {} },
    });
    expect(byId.get('chat')!.responses['503']).toMatchObject({ headers: { 'Retry-After': {} } });
    expect(byId.get('chat')!.responses['200']).toMatchObject({ headers: { RateLimit: {} } });
  });

  test('a stream route lists text/event-stream as its second success content type, no other route does', () => {
    const byId = new Map(operations(build()).map((op) => [op.operationId, op]));
    const contentTypes = (id: string) => {
      const success = Object.entries(byId.get(id)!.responses).find(([status]) => status.startsWith('2'));
      return Object.keys((success![1] as { content: JsonObject }).content);
    };
    expect(RouteTable.filter((route) => route.stream).map((route) => route.id)).toEqual(['chat']);
    expect(contentTypes('chat')).toEqual(['application/json', 'text/event-stream']);
    for (const route of RouteTable.filter((r) => !r.stream)) {
      expect({ id: route.id, stream: contentTypes(route.id).includes('text/event-stream') }).toEqual({
        id: route.id,
        stream: false,
      });
    }
  });

  test('the handshake poll documents the verifier header, its Retry-After and the pickup fields', () => {
    const doc = build();
    const poll = operations(doc).find((op) => op.operationId === 'handshakeStatus');
    expect(poll?.parameters).toContainEqual(
      expect.objectContaining({ name: 'Handshake-Verifier', in: 'header', required: false }),
    );
    expect(poll?.responses['200']).toMatchObject({
      headers: { 'Retry-After': { schema: { type: 'integer', minimum: 1 } } },
    });
    expect(doc.components.schemas.HandshakeStatus).toMatchObject({
      properties: { interval: {}, token: {}, tokenCollected: { type: 'boolean' } },
    });
    expect(doc.components.schemas.HandshakeCreateRequest).toMatchObject({
      properties: { codeChallenge: { pattern: expect.any(String) }, codeChallengeMethod: { enum: ['S256'] } },
    });
    expect(doc.components.schemas.HandshakeCreated).toMatchObject({
      properties: { tokenDelivery: { enum: ['pickup', 'owner'] }, interval: {} },
    });
    // No other route receives a client header or says Retry-After on success.
    for (const op of operations(doc).filter((item) => item.operationId !== 'handshakeStatus')) {
      expect(
        (op.parameters as JsonObject[] | undefined)?.filter((param) => param.in === 'header') ?? [],
      ).toEqual([]);
    }
  });

  test('request bodies reject unknown fields; the oauth2 flow points at the server', () => {
    const doc = build();
    for (const name of [
      'HandshakeCreateRequest',
      'MemoryWriteRequest',
      'ChatRequest',
      'TriggerCreateRequest',
    ]) {
      expect(doc.components.schemas[name]).toMatchObject({ additionalProperties: false });
    }
    expect(doc.components.schemas.HandshakeCreateRequest).toMatchObject({
      properties: { requestedScopes: { uniqueItems: true, minItems: 1 } },
    });
    expect(doc.components.securitySchemes.oauth2).toMatchObject({
      flows: {
        authorizationCode: {
          authorizationUrl: 'https://gateway.example.com/oauth/authorize',
          tokenUrl: 'https://gateway.example.com/oauth/token',
          scopes: { full: expect.any(String), 'services:read': expect.any(String) },
        },
      },
    });
  });
});
