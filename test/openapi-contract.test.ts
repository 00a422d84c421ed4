/**
 * The served OpenAPI document is a contract: on the embedded stack (a stand-in GitHub connected
 * through the proxy, a Pro owner), every operation of /openapi.json is called at least once, with
 * a full token, a scope-limited one, a usage-limited one, no token and bad input, and each answer
 * must match what the document says for it: a documented status, one of its content types, the
 * headers it marks required, and a body valid against its schema (ajv on the document's own JSON
 * Schemas; an error's `code` must be one listed for that status). An operation nobody called fails
 * the test, so a new route is exercised as soon as it is documented.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { OpenApiDocument } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { FakeUpstream } from '../services/proxy/test/support/fake-upstream.ts';

const OWNER = { email: 'olive@contract.test', password: 'olive long password' };
const DOC_ID = 'https://contract.test/openapi.json';

interface Operation {
  operationId: string;
  responses: Record<
    string,
    { content?: Record<string, { schema: unknown }>; headers?: Record<string, { required?: boolean }> }
  >;
}

let stack: StackProcess;
let github: FakeUpstream;
let doc: OpenApiDocument;
const operations = new Map<string, { method: string; path: string; operation: Operation }>();
const called = new Set<string>();
const failures: string[] = [];
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const validators = new Map<string, ValidateFunction>();
const tokens = { full: '', limited: '', reader: '', agent: '' };

const pag = (...argv: string[]) =>
  pagCommand(
    () => stack.dataDir,
    () => stdin,
  )(...argv);
let stdin = '';

async function createToken(name: string, scopes: string, ...extra: string[]): Promise<string> {
  const made = await pag(
    'token',
    'create',
    '--owner',
    OWNER.email,
    '--name',
    name,
    '--scopes',
    scopes,
    ...extra,
  );
  expect(made.code).toBe(0);
  return made.out.at(-1) ?? '';
}

beforeAll(async () => {
  github = await FakeUpstream.start();
  stack = await startStackProcess({ env: { CONNECTOR_BASE_URLS: JSON.stringify({ github: github.url }) } });
  expect(
    (await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password, '--plan', 'pro'))
      .code,
  ).toBe(0);
  tokens.full = await createToken('contract-full', 'full');
  tokens.reader = await createToken('contract-reader', 'read');
  tokens.limited = await createToken('contract-limited', 'full', '--daily', '1');
  stdin = 'ghp_contractTestKey0123456789\n';
  expect(
    (await pag('connection', 'add', '--owner', OWNER.email, '--service', 'github', '--label', 'ci')).code,
  ).toBe(0);
  stdin = '';
  doc = (await (await fetch(`${stack.url}/openapi.json`)).json()) as OpenApiDocument;
  ajv.addSchema({ $id: DOC_ID, components: doc.components });
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, operation] of Object.entries(item))
      operations.set(operation.operationId, { method, path, operation });
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await github?.[Symbol.asyncDispose]();
});

/** The documented response for a status: exact, then its range (2XX), then default. */
function documented(operation: Operation, status: number) {
  return (
    operation.responses[String(status)] ??
    operation.responses[`${String(status)[0]}XX`] ??
    operation.responses.default
  );
}

function validator(key: string, schema: unknown): ValidateFunction {
  let found = validators.get(key);
  if (found === undefined) {
    // The document's references point into its own components, registered under DOC_ID.
    found = ajv.compile(
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)),
    );
    validators.set(key, found);
  }
  return found;
}

interface CallOptions {
  params?: Record<string, string>;
  query?: string;
  token?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** A raw body (form or malformed JSON) sent as is. */
  raw?: string;
  contentType?: string;
}

/** Calls one operation and checks the answer against the document; returns it for the test's own checks. */
async function call(
  operationId: string,
  options: CallOptions = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const entry = operations.get(operationId);
  if (entry === undefined) throw new Error(`${operationId} is not in the document`);
  called.add(operationId);
  const path = entry.path.replace(/\{(\w+)\}/g, (_, name: string) => options.params?.[name] ?? 'x');
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    headers['content-type'] = options.contentType ?? 'application/x-www-form-urlencoded';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${stack.url}${path}${options.query ?? ''}`, {
    method: entry.method.toUpperCase(),
    headers,
    body,
    redirect: 'manual',
  });
  const text = await response.text();
  const where = `${operationId} ${entry.method.toUpperCase()} ${path} → ${response.status}`;
  const answer = documented(entry.operation, response.status);
  if (answer === undefined) {
    failures.push(`${where}: status not documented (${text.slice(0, 200)})`);
    return { status: response.status, body: text, headers: response.headers };
  }
  for (const [name, header] of Object.entries(answer.headers ?? {})) {
    if (header.required && response.headers.get(name) === null) failures.push(`${where}: no ${name} header`);
  }
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
  const content = answer.content ?? {};
  const mediaType = Object.keys(content).find((key) => key === '*/*' || key.split(';')[0] === type);
  if (Object.keys(content).length === 0) {
    if (text !== '') failures.push(`${where}: a body where none is documented`);
    return { status: response.status, body: text, headers: response.headers };
  }
  if (mediaType === undefined) {
    failures.push(`${where}: content type ${type} not among ${Object.keys(content).join(', ')}`);
    return { status: response.status, body: text, headers: response.headers };
  }
  if (!/[/+]json$/.test(type)) return { status: response.status, body: text, headers: response.headers };
  const json: unknown = JSON.parse(text);
  const key = `${operationId} ${response.status} ${mediaType}`;
  const validate = validator(key, content[mediaType]?.schema ?? {});
  if (!validate(json)) failures.push(`${where}: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 300)}`);
  return { status: response.status, body: json, headers: response.headers };
}

const pkcePair = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

test('every documented operation answers as documented', async () => {
  // Public documents.
  for (const id of [
    'discoveryIndex',
    'discoveryIndexAlias',
    'discoveryIndexAtBase',
    'quickStart',
    'capabilities',
    'openapi',
    'llms',
    'authGuide',
    'oauthMetadata',
    'openidConfiguration',
    'protectedResourceMetadataBase',
    'protectedResourceMetadataApi',
    'protectedResourceMetadataMcp',
    'oauthJwks',
  ]) {
    expect({ id, status: (await call(id)).status }).toEqual({ id, status: 200 });
  }
  expect((await call('quickStart', { query: '?access_token=abc' })).status).toBe(400);
  // Every served text shows paths in the document's one style: `{name}`, never `:name` or `*path`.
  for (const [id, token] of [
    ['discoveryIndex', undefined],
    ['quickStart', undefined],
    ['capabilities', undefined],
    ['llms', undefined],
    ['authGuide', undefined],
    ['openapi', undefined],
    ['tokenCapabilities', tokens.full],
    ['gatewayContext', tokens.full],
  ] as const) {
    const { body } = await call(id, token === undefined ? {} : { token });
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    expect({ id, shown: text.match(/\/:[A-Za-z]\w*|\*path\b/g) }).toEqual({ id, shown: null });
  }

  // The token's own view, without a token, with a bad one, with a malformed header.
  expect((await call('tokenCapabilities', { token: tokens.full })).status).toBe(200);
  expect((await call('tokenCapabilities')).status).toBe(401);
  expect((await call('tokenCapabilities', { token: 'pag_not-a-token' })).status).toBe(401);
  expect((await call('gatewayContext', { token: tokens.full })).status).toBe(200);

  // Memory, knowledge, chat and the brain's reads.
  const memory = await call('writeMemory', { token: tokens.full, body: { content: 'contract note' } });
  expect(memory.status).toBe(201);
  expect((await call('writeMemory', { token: tokens.full, body: { content: 7 } })).status).toBe(400);
  expect(
    (await call('writeMemory', { token: tokens.full, raw: '{"content":', contentType: 'application/json' }))
      .status,
  ).toBe(400);
  expect(
    (await call('writeMemory', { token: tokens.full, raw: 'content=x', contentType: 'text/plain' })).status,
  ).toBe(415);
  const memoryId = (memory.body as { id: string }).id;
  expect((await call('deleteMemory', { token: tokens.full, params: { id: memoryId } })).status).toBe(200);
  expect((await call('deleteMemory', { token: tokens.full, params: { id: memoryId } })).status).toBe(404);
  expect((await call('knowledgeBase', { token: tokens.full, query: '?q=anything' })).status).toBe(200);
  expect((await call('knowledgeBase', { token: tokens.full, query: '?limit=nope' })).status).toBe(400);
  const chat = await call('chat', { token: tokens.full, body: { message: 'hello' } });
  expect(chat.status).toBe(200);
  expect((await call('chat', { token: tokens.reader, body: { message: 'hello' } })).status).toBe(403);
  const conversationId = (chat.body as { conversationId: string }).conversationId;
  expect((await call('getConversation', { token: tokens.full, params: { id: conversationId } })).status).toBe(
    200,
  );
  expect(
    (await call('getConversation', { token: tokens.full, params: { id: 'conv_AAAAAAAAAAAAAAAAAAAAAA' } }))
      .status,
  ).toBe(404);
  for (const id of [
    'listPersonas',
    'identity',
    'listServices',
    'listVaultTokens',
    'listConnectors',
    'listTriggers',
  ]) {
    expect({ id, status: (await call(id, { token: tokens.full })).status }).toEqual({ id, status: 200 });
  }

  // A usage-limited token: its first request is served with RateLimit fields, the second is 429.
  const first = await call('identity', { token: tokens.limited });
  expect(first.status).toBe(200);
  expect(first.headers.get('ratelimit')).not.toBeNull();
  expect((await call('identity', { token: tokens.limited })).status).toBe(429);

  // The proxy: connected, not connected, a write without the scope, a GET with a body.
  for (const [id, method] of [
    ['proxyGet', 'GET'],
    ['proxyPost', 'POST'],
    ['proxyPut', 'PUT'],
    ['proxyPatch', 'PATCH'],
    ['proxyDelete', 'DELETE'],
  ] as const) {
    const body = method === 'GET' ? undefined : '{}';
    const answer = await call(id, {
      token: tokens.full,
      params: { service: 'github', path: 'user/repos' },
      ...(body === undefined ? {} : { raw: body, contentType: 'application/json' }),
    });
    expect({ id, status: answer.status }).toEqual({ id, status: 201 });
  }
  expect(
    (await call('proxyGet', { token: tokens.full, params: { service: 'slack', path: 'users.info' } })).status,
  ).toBe(409);
  expect(
    (
      await call('proxyPost', {
        token: tokens.reader,
        params: { service: 'github', path: 'user/repos' },
        raw: '{}',
        contentType: 'application/json',
      })
    ).status,
  ).toBe(403);
  expect(
    (
      await call('proxyGet', {
        token: tokens.full,
        params: { service: 'github', path: 'user' },
        query: '?_method=DELETE',
      })
    ).status,
  ).toBe(400);

  // Triggers (a Pro owner): create, read, run, pause, resume, delete; a stranger's id is 404.
  const created = await call('createTrigger', {
    token: tokens.full,
    body: {
      name: 'Contract',
      kind: 'schedule',
      schedule: { type: 'daily', atHour: 8, atMinute: 0 },
      timezone: 'UTC',
      actionType: 'ai_prompt',
      action: { prompt: 'Say hi.', services: [] },
    },
  });
  expect(created.status).toBe(201);
  const triggerId = { id: (created.body as { id: string }).id };
  expect((await call('createTrigger', { token: tokens.full, body: { name: 'x' } })).status).toBe(400);
  expect((await call('getTrigger', { token: tokens.full, params: triggerId })).status).toBe(200);
  expect(
    (await call('getTrigger', { token: tokens.full, params: { id: 'trg_AAAAAAAAAAAAAAAAAAAAAA' } })).status,
  ).toBe(404);
  expect((await call('runTrigger', { token: tokens.full, params: triggerId })).status).toBe(202);
  expect((await call('listTriggerRuns', { token: tokens.full, params: triggerId })).status).toBe(200);
  expect((await call('pauseTrigger', { token: tokens.full, params: triggerId })).status).toBe(200);
  expect((await call('resumeTrigger', { token: tokens.full, params: triggerId })).status).toBe(200);
  expect((await call('deleteTrigger', { token: tokens.full, params: triggerId })).status).toBe(200);

  // Handshakes and devices, without a token.
  const proof = pkcePair();
  const handshake = await call('createHandshake', {
    body: {
      agentId: 'contract-agent',
      requestedScopes: ['read'],
      message: 'Contract test.',
      codeChallenge: proof.challenge,
      codeChallengeMethod: 'S256',
    },
  });
  expect(handshake.status).toBe(201);
  const handshakeId = { handshakeId: (handshake.body as { handshakeId: string }).handshakeId };
  expect((await call('handshakeStatus', { params: handshakeId })).status).toBe(200);
  expect(
    (
      await call('handshakeStatus', {
        params: handshakeId,
        headers: { 'handshake-verifier': pkcePair().verifier },
      })
    ).status,
  ).toBe(403);
  expect(
    (await call('handshakeStatus', { params: { handshakeId: 'hs_AAAAAAAAAAAAAAAAAAAAAA' } })).status,
  ).toBe(404);
  expect(
    (await call('handshakeStatus', { params: handshakeId, headers: { 'handshake-verifier': 'short' } }))
      .status,
  ).toBe(400);
  const publicKey = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x ?? '';
  expect((await call('registerDevice', { body: { publicKey, deviceName: 'contract device' } })).status).toBe(
    201,
  );
  expect((await call('registerDevice', { body: { publicKey, deviceName: 'contract device' } })).status).toBe(
    409,
  );

  // MCP at /mcp and at the base URL.
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'contract', version: '1' },
    },
  };
  const mcpHeaders = { accept: 'application/json, text/event-stream' };
  expect((await call('mcp', { token: tokens.full, body: initialize, headers: mcpHeaders })).status).toBe(200);
  expect(
    (await call('mcpAtBase', { token: tokens.full, body: initialize, headers: mcpHeaders })).status,
  ).toBe(200);
  expect((await call('mcp', { body: initialize, headers: mcpHeaders })).status).toBe(401);
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  expect((await call('mcp', { token: tokens.full, body: initialized, headers: mcpHeaders })).status).toBe(
    202,
  );

  // OAuth: register a client, authorize (redirect; a bad request is an HTML page), token errors, revoke, introspect.
  const redirectUri = 'http://127.0.0.1:7777/callback';
  const client = await call('oauthRegister', {
    body: { redirect_uris: [redirectUri], client_name: 'Contract client' },
  });
  expect(client.status).toBe(201);
  expect((await call('oauthRegister', { body: { redirect_uris: ['ftp://nope'] } })).status).toBe(400);
  const clientId = (client.body as { client_id: string }).client_id;
  const authorize = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: proof.challenge,
    code_challenge_method: 'S256',
    scope: 'knowledge',
  });
  expect((await call('oauthAuthorize', { query: `?${authorize}` })).status).toBe(303);
  expect((await call('oauthAuthorize', { query: '?client_id=unknown' })).status).toBe(400);
  const grant = new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: clientId,
    code: 'not-a-code',
    redirect_uri: redirectUri,
    code_verifier: proof.verifier,
  });
  expect((await call('oauthToken', { raw: grant.toString() })).status).toBe(400);
  expect(
    (
      await call('oauthToken', {
        raw: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: 'unknown',
          refresh_token: 'x',
        }).toString(),
      })
    ).status,
  ).toBe(401);
  expect(
    (
      await call('oauthRevoke', {
        raw: new URLSearchParams({ token: 'not-a-token', client_id: clientId }).toString(),
      })
    ).status,
  ).toBe(200);
  expect(
    (await call('oauthIntrospect', { raw: new URLSearchParams({ token: tokens.full }).toString() })).status,
  ).toBe(401);
  expect((await call('oauthEndSession')).status).toBe(200);

  expect(failures).toEqual([]);
  expect([...operations.keys()].filter((id) => !called.has(id))).toEqual([]);
}, 60_000);
