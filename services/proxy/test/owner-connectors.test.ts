/**
 * The owner's own OAuth clients and generic OAuth 2.0 connectors (docs/adr/0068), against the
 * stand-in provider on loopback (test/support/stand-in-provider.ts). The deployment configures the
 * stand-in (CONNECTOR_CUSTOM) with a wrong client secret: only an owner who enters the right
 * client can connect it. The dashboard's side is played by asking the proxy's owner endpoints over
 * the bus as auth does.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { AnyEndpoint, EndpointInput, EndpointReply } from '@pag/contracts';
import {
  AppError,
  ConnectorList,
  MessageHeaders,
  ProxyEndpoints,
  ProxyOwnerEndpoints,
  ServiceList,
} from '@pag/contracts';
import { createPrismaClient, listen, requestEndpoint } from '@pag/kit';
import { eventually, findInTables } from '@pag/kit/testing';
import { ownerDefinition } from '../src/connectors/owner-connector.ts';
import { proxyDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { openProxyStore } from '../src/operator/store-api-key.ts';
import { ConnectStore } from '../src/store/connect-store.ts';
import { OwnerConnectorStore } from '../src/store/owner-connector-store.ts';
import { VaultKeyRing } from '../src/vault/key-ring.ts';
import { httpCall } from './support/http-call.ts';
import { STAND_IN_CLIENT, StandInProvider } from './support/stand-in-provider.ts';
import type { TestProxy } from './support/start-test-proxy.ts';
import { API_AUDIENCE, PUBLIC_URL, startTestProxy } from './support/start-test-proxy.ts';

const REDIRECT_URI = `${PUBLIC_URL}/dashboard/services/callback`;
const ownerA = randomUUID();
const ownerB = randomUUID();
const sessionOf = (account: string) =>
  createHash('sha256').update(`session of ${account}`).digest('base64url');
const TOKEN_A = 'owner-a-agent-token';
const TOKEN_B = 'owner-b-agent-token';

let provider: StandInProvider;
let stack: TestProxy;
let db: PrismaClient;

beforeAll(async () => {
  provider = await StandInProvider.start(REDIRECT_URI);
  const deployment = {
    ...provider.connector,
    client: { ...STAND_IN_CLIENT, clientSecret: 'not-the-secret' },
  };
  stack = await startTestProxy({
    CONNECTOR_CUSTOM: JSON.stringify([deployment]),
    CONNECTOR_ALLOW_LOOPBACK: 'true',
  });
  stack.auth.issue(TOKEN_A, { accountId: ownerA, scopes: ['full'], audience: API_AUDIENCE });
  stack.auth.issue(TOKEN_B, { accountId: ownerB, scopes: ['full'], audience: API_AUDIENCE });
  db = createPrismaClient(PrismaClient, { databaseUrl: stack.postgres.url, schema: proxyDatabase.schema });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await stack?.[Symbol.asyncDispose]();
  await provider?.[Symbol.asyncDispose]();
});

const ask = <E extends AnyEndpoint>(endpoint: E, input: EndpointInput<E>): Promise<EndpointReply<E>> =>
  requestEndpoint(stack.bus, endpoint, input, {
    timeoutMs: 15_000,
    headers: { [MessageHeaders.requestId]: randomUUID() },
  }) as Promise<EndpointReply<E>>;

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function connect(accountId: string, service: string): Promise<URL> {
  const { authorizationUrl } = await ask(ProxyOwnerEndpoints.connectStart, {
    accountId,
    service,
    sessionBinding: sessionOf(accountId),
    redirectUri: REDIRECT_URI,
  });
  const url = new URL(authorizationUrl);
  const back = await provider.authorize(authorizationUrl, REDIRECT_URI);
  await ask(ProxyOwnerEndpoints.connectFinish, {
    accountId,
    sessionBinding: sessionOf(accountId),
    state: back.searchParams.get('state') ?? '',
    code: back.searchParams.get('code'),
    error: null,
  });
  return url;
}

async function listed(accountId: string) {
  const { connectors } = ConnectorList.parse(await ask(ProxyOwnerEndpoints.connectorsList, { accountId }));
  return new Map(connectors.map((connector) => [connector.name, connector]));
}

const call = (service: string, token: string, proxy: { url: string } = stack.proxy) =>
  httpCall(`${proxy.url}/api/v1/services/${service}/items`, {
    headers: { authorization: `Bearer ${token}` },
  });

async function services(accountId: string) {
  const reply = await stack.bus.request(
    ProxyEndpoints.servicesList.subject,
    { params: {}, query: {}, body: null },
    { timeoutMs: 5_000, headers: { [MessageHeaders.accountId]: accountId, [MessageHeaders.scopes]: 'full' } },
  );
  return ServiceList.parse(reply).services;
}

function ownFields(name: string) {
  return {
    name,
    displayName: 'My API',
    authorizationUrl: `${provider.url}/auth`,
    tokenUrl: `${provider.url}/token`,
    revocationUrl: `${provider.url}/token/revocation`,
    apiBaseUrl: `${provider.url}/api`,
    scopes: ['openid'],
    clientAuth: 'client_secret_basic' as const,
    pkce: true,
    clientId: STAND_IN_CLIENT.clientId,
    clientSecret: STAND_IN_CLIENT.clientSecret,
  };
}

describe("an owner's own client", () => {
  test("beats the deployment's, for that owner only; the other owner keeps the deployment's", async () => {
    const failed = await refusal(connect(ownerA, 'stand-in'));
    expect(failed.code).toBe('UPSTREAM_ERROR');
    await ask(ProxyOwnerEndpoints.clientSet, {
      accountId: ownerA,
      service: 'stand-in',
      ...STAND_IN_CLIENT,
    });
    expect((await listed(ownerA)).get('stand-in')).toMatchObject({ client: 'owner', canConnect: true });
    expect((await listed(ownerB)).get('stand-in')).toMatchObject({ client: 'deployment' });
    await connect(ownerA, 'stand-in');
    expect((await call('stand-in', TOKEN_A)).status).toBe(200);
    // Owner B cannot use owner A's client: the deployment's is refused by the provider.
    expect((await refusal(connect(ownerB, 'stand-in'))).code).toBe('UPSTREAM_ERROR');
    expect(await ask(ProxyOwnerEndpoints.settingsGet, { accountId: ownerA })).toEqual({
      clients: [{ service: 'stand-in', clientId: STAND_IN_CLIENT.clientId }],
      connectors: [],
    });
    expect(await ask(ProxyOwnerEndpoints.settingsGet, { accountId: ownerB })).toEqual({
      clients: [],
      connectors: [],
    });
  }, 60_000);
});

describe("an owner's own generic OAuth 2.0 connector", () => {
  test('is defined, connected with PKCE and state, and called; owner B neither sees nor calls it', async () => {
    expect(
      await ask(ProxyOwnerEndpoints.customSet, { accountId: ownerA, connector: ownFields('my-api') }),
    ).toEqual({ service: 'my-api', displayName: 'My API' });
    expect((await listed(ownerA)).get('my-api')).toMatchObject({
      owned: true,
      client: 'owner',
      canConnect: true,
    });
    expect((await listed(ownerB)).has('my-api')).toBe(false);
    const authorization = await connect(ownerA, 'my-api');
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const answer = await call('my-api', TOKEN_A);
    expect(answer.status).toBe(200);
    expect(await services(ownerA)).toContainEqual(
      expect.objectContaining({ name: 'my-api', health: 'healthy' }),
    );
    expect(answer.json()).toEqual({ items: ['one', 'two'] });
    // Expired: refreshed at its token endpoint (through the public-address check) before the call.
    const before = provider.refreshes;
    await db.vaultToken.updateMany({
      where: { accountId: ownerA, service: 'my-api', kind: 'oauth2' },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    // Whether or not the last call's credential was kept (a change announced while it was read,
    // such as the connection's own, keeps it out), none may be kept once this change is heard.
    await eventually(() => !stack.proxy.credentials.holds(ownerA, 'my-api'), {
      what: 'the proxy dropped its copy',
    });
    expect((await call('my-api', TOKEN_A)).status).toBe(200);
    expect(provider.refreshes).toBe(before + 1);
    const other = await call('my-api', TOKEN_B);
    expect(other.status).toBe(404);
    expect(other.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect(
      (
        await refusal(
          ask(ProxyOwnerEndpoints.clientSet, { accountId: ownerB, service: 'my-api', ...STAND_IN_CLIENT }),
        )
      ).code,
    ).toBe('NOT_FOUND');
    expect(
      (await refusal(ask(ProxyOwnerEndpoints.customRemove, { accountId: ownerB, service: 'my-api' }))).code,
    ).toBe('NOT_FOUND');
  }, 60_000);

  test('a name of the catalogue or the deployment is refused, and a bad URL names its field', async () => {
    const taken = await refusal(
      ask(ProxyOwnerEndpoints.customSet, { accountId: ownerA, connector: ownFields('github') }),
    );
    expect(taken.code).toBe('INVALID_REQUEST');
    expect(taken.message).toMatch(/^name:/);
    const bad = await refusal(
      ask(ProxyOwnerEndpoints.customSet, {
        accountId: ownerA,
        connector: { ...ownFields('other'), tokenUrl: 'ftp://example.com/token' },
      }),
    );
    expect(bad.code).toBe('INVALID_REQUEST');
    expect(bad.message).toMatch(/^tokenUrl:/);
  }, 30_000);

  test('neither client secret nor token is anywhere in the database in the clear', async () => {
    const tokens = provider.acceptedTokens;
    expect(tokens.length).toBeGreaterThan(0);
    expect(await findInTables(stack.postgres.url, [STAND_IN_CLIENT.clientSecret, ...tokens])).toEqual([]);
    const rows = await db.ownerConnector.findMany({ where: { accountId: ownerA } });
    expect(rows.map((row) => [row.service, row.keyId]).sort()).toEqual([
      ['my-api', stack.keyRing.activeId],
      ['stand-in', stack.keyRing.activeId],
    ]);
  }, 30_000);
});

describe('requests for an owner connector go to public addresses only', () => {
  let trap: Server;
  let arrivals = 0;

  beforeAll(async () => {
    trap = createServer((socket) => {
      arrivals += 1;
      socket.destroy();
    });
    await listen(trap as unknown as import('node:http').Server, 0, '127.0.0.1');
  });

  afterAll(async () => {
    await new Promise((resolve) => trap.close(resolve));
  });

  test('a call whose host now resolves to loopback is refused, and nothing reaches it', async () => {
    const port = (trap.address() as { port: number }).port;
    // Defined while the host was acceptable (here: loopback allowed), connected, then the
    // address is no longer allowed: a replica without CONNECTOR_ALLOW_LOOPBACK.
    const definition = ownerDefinition(
      { ...ownFields('trap'), apiBaseUrl: `http://localhost:${port}/api`, revocationUrl: null, scopes: [] },
      true,
    );
    await new OwnerConnectorStore({ prisma: db, keyRing: stack.keyRing }).save(ownerA, 'trap', {
      definition,
      clientId: 'trap-client',
      clientSecret: 'trap-secret',
    });
    await new ConnectStore({ prisma: db, keyRing: stack.keyRing }).saveConnected(ownerA, 'trap', {
      accessToken: 'trap-token',
      refreshToken: null,
      expiresAt: null,
      scopes: [],
    });
    const strict = await stack.startAnother({ CONNECTOR_ALLOW_LOOPBACK: 'false', CONNECTOR_CUSTOM: '[]' });
    try {
      const answer = await call('trap', TOKEN_A, strict);
      expect(answer.status).toBe(502);
      expect(answer.json()).toMatchObject({ error: { code: 'UPSTREAM_ADDRESS_REFUSED' } });
    } finally {
      await strict.close();
    }
    expect(arrivals).toBe(0);
  }, 60_000);
});

describe('afterwards', () => {
  test('deleting it disconnects and forgets its tokens', async () => {
    const done = await ask(ProxyOwnerEndpoints.customRemove, { accountId: ownerA, service: 'my-api' });
    expect(done).toMatchObject({ service: 'my-api', revoked: true });
    expect(await db.vaultToken.count({ where: { accountId: ownerA, service: 'my-api' } })).toBe(0);
    await eventually(async () => (await call('my-api', TOKEN_A)).status === 404, {
      what: 'the deleted connector unknown to the proxy',
    });
  }, 60_000);
  test('a key rotation rewraps the client secrets; a proxy holding the new key alone still reads them', async () => {
    const newKey = randomBytes(32);
    const rotating = openProxyStore({
      databaseUrl: stack.postgres.url,
      keyRing: new VaultKeyRing(
        new Map([
          ['new', newKey],
          [stack.keyRing.activeId, stack.vaultKey],
        ]),
        'new',
      ),
    });
    try {
      expect(await rotating.rotateKey()).toMatchObject({ activeId: 'new', remaining: 0 });
    } finally {
      await rotating.close();
    }
    const rows = await db.ownerConnector.findMany({ where: { accountId: ownerA } });
    expect(rows.map((row) => row.keyId)).toEqual(['new', 'new']);
    const newOnly = await stack.startAnother({
      VAULT_KEYS: `new:${newKey.toString('base64')}`,
      VAULT_ENCRYPTION_KEY: '',
    });
    try {
      expect((await call('stand-in', TOKEN_A, newOnly)).status).toBe(200);
    } finally {
      await newOnly.close();
    }
  }, 60_000);
});
