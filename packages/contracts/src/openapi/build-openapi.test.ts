import { describe, expect, test } from '@jest/globals';
import { compileErrors, validate } from '@readme/openapi-parser';
import { RouteTable } from '../routes/route-table.ts';
import { buildOpenApiDocument, type OpenApiDocument, type OpenApiOptions } from './build-openapi.ts';
import type { JsonObject } from './components.ts';

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

  test('has one operation per route and unique operationIds', () => {
    const ids = operations(build()).map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(RouteTable.map((route) => route.id).sort());
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

  test('documents the error responses that apply', () => {
    const byId = new Map(operations(build()).map((op) => [op.operationId, op]));
    expect(Object.keys(byId.get('chat')!.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '413',
      '429',
      '502',
      '503',
      '504',
    ]);
    expect(Object.keys(byId.get('quickStart')!.responses).sort()).toEqual(['200', '429']);
    expect(Object.keys(byId.get('handshakeStatus')!.responses).sort()).toEqual([
      '200',
      '400',
      '404',
      '429',
      '503',
      '504',
    ]);
    // A gateway route answers itself: no bus, no upstream.
    expect(Object.keys(byId.get('tokenCapabilities')!.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '429',
      '503',
    ]);
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
