/**
 * Connecting a service through OAuth and keeping its token fresh, against a stand-in provider on
 * loopback (a second oidc-provider as its authorization server, plus a small API that accepts only
 * its live access tokens; test/support/stand-in-provider.ts), configured as the deployment's own
 * connector (CONNECTOR_CUSTOM, loopback allowed for tests). Two proxy replicas share one database.
 *
 * The dashboard's side (auth's /dashboard/services) is played here by asking the proxy's owner
 * endpoints over the bus as it does; test/connect-dashboard.test.ts drives the pages.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ActionAuditEvent, AnyEndpoint, EndpointInput, EndpointReply } from '@pag/contracts';
import {
  ActionAuditEvent as ActionAuditEventSchema,
  AppError,
  AuditStream,
  ConnectorList,
  MessageHeaders,
  ProxyEndpoints,
  ProxyOwnerEndpoints,
  ServiceList,
} from '@pag/contracts';
import { createPrismaClient, requestEndpoint } from '@pag/kit';
import { countTables, eventually, findInTables } from '@pag/kit/testing';
import { proxyDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { openProxyStore } from '../src/operator/store-api-key.ts';
import type { RunningProxy } from '../src/service.ts';
import { VaultKeyRing } from '../src/vault/key-ring.ts';
import { httpCall } from './support/http-call.ts';
import { STAND_IN_CLIENT, StandInProvider } from './support/stand-in-provider.ts';
import type { TestProxy } from './support/start-test-proxy.ts';
import { API_AUDIENCE, PUBLIC_URL, startTestProxy } from './support/start-test-proxy.ts';

const REDIRECT_URI = `${PUBLIC_URL}/dashboard/services/callback`;
const owner = randomUUID();
const session = createHash('sha256').update(`session of ${owner}`).digest('base64url');
const otherSession = createHash('sha256').update('someone else').digest('base64url');
const TOKEN = 'owner-agent-token';

let provider: StandInProvider;
let stack: TestProxy;
let replica: RunningProxy;
let db: PrismaClient;
const audit: ActionAuditEvent[] = [];

beforeAll(async () => {
  provider = await StandInProvider.start(REDIRECT_URI);
  stack = await startTestProxy({
    CONNECTOR_CUSTOM: JSON.stringify([provider.connector]),
    CONNECTOR_ALLOW_LOOPBACK: 'true',
  });
  replica = await stack.startAnother({});
  stack.auth.issue(TOKEN, { accountId: owner, scopes: ['full'], audience: API_AUDIENCE });
  db = createPrismaClient(PrismaClient, { databaseUrl: stack.postgres.url, schema: proxyDatabase.schema });
  await stack.bus.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
  await stack.bus.consume<unknown>(AuditStream.name, 'connect-test', async (message) => {
    audit.push(ActionAuditEventSchema.parse(message.data));
  });
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

async function connect(binding = session): Promise<URL> {
  const { authorizationUrl } = await ask(ProxyOwnerEndpoints.connectStart, {
    accountId: owner,
    service: 'stand-in',
    sessionBinding: session,
    redirectUri: REDIRECT_URI,
  });
  const url = new URL(authorizationUrl);
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  const back = await provider.authorize(authorizationUrl, REDIRECT_URI);
  await ask(ProxyOwnerEndpoints.connectFinish, {
    accountId: owner,
    sessionBinding: binding,
    state: back.searchParams.get('state') ?? '',
    code: back.searchParams.get('code'),
    error: null,
  });
  return back;
}

const callApi = (proxy: { url: string } = stack.proxy) =>
  httpCall(`${proxy.url}/api/v1/services/stand-in/items`, { headers: { authorization: `Bearer ${TOKEN}` } });

async function health(): Promise<string | undefined> {
  const { services } = ServiceList.parse(
    await stack.bus.request(
      ProxyEndpoints.servicesList.subject,
      { params: {}, query: {}, body: null },
      {
        timeoutMs: 5_000,
        headers: { [MessageHeaders.accountId]: owner, [MessageHeaders.scopes]: 'full' },
      },
    ),
  );
  return services.find((service) => service.name === 'stand-in')?.health;
}

/**
 * The access token's expiry moved into the past, as time would. Time passing needs no notice (a
 * credential in memory is kept only until its refresh point); a row changed by hand does: the
 * replicas drop their copy when the tables' trigger reaches them, which is awaited here.
 */
async function expireAccessToken(...others: RunningProxy[]): Promise<void> {
  const changed = await db.vaultToken.updateMany({
    where: { accountId: owner, service: 'stand-in', kind: 'oauth2' },
    data: { expiresAt: new Date(Date.now() - 1000) },
  });
  expect(changed.count).toBe(1);
  await heardEverywhere(...others);
}

/** Every replica dropped its copy of the owner's credential: the last change reached it. */
async function heardEverywhere(...others: RunningProxy[]): Promise<void> {
  const replicas = [stack.proxy, replica, ...others];
  await eventually(() => replicas.every((proxy) => proxy.credentials.size === 0), {
    what: 'every replica heard that the credential changed',
  });
}

/** None of the tokens the provider issued so far (old and new), nor the client secret, is stored in the clear. */
async function expectNoTokenInTheClear(): Promise<void> {
  expect(provider.issuedTokens.length).toBeGreaterThan(0);
  expect(
    await findInTables(stack.postgres.url, [...provider.issuedTokens, STAND_IN_CLIENT.clientSecret]),
  ).toEqual([]);
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('connecting', () => {
  test('a state works once, and only in the session that started it', async () => {
    const back = await refusal(connect(otherSession));
    expect(back).toBe('CONNECT_FAILED');
    // The state was taken by the refused attempt: the same callback again is refused too.
    const { authorizationUrl } = await ask(ProxyOwnerEndpoints.connectStart, {
      accountId: owner,
      service: 'stand-in',
      sessionBinding: session,
      redirectUri: REDIRECT_URI,
    });
    const answer = await provider.authorize(authorizationUrl, REDIRECT_URI);
    const finish = {
      accountId: owner,
      sessionBinding: session,
      state: answer.searchParams.get('state') ?? '',
      code: answer.searchParams.get('code'),
      error: null,
    };
    await ask(ProxyOwnerEndpoints.connectFinish, finish);
    expect(await refusal(ask(ProxyOwnerEndpoints.connectFinish, finish))).toBe('CONNECT_FAILED');
    expect(
      await refusal(
        ask(ProxyOwnerEndpoints.connectFinish, { ...finish, state: 'never-issued', accountId: randomUUID() }),
      ),
    ).toBe('CONNECT_FAILED');
  }, 30_000);

  test('the code is exchanged with PKCE and the client secret; calls go through with the stored token', async () => {
    await connect();
    expect(await health()).toBe('healthy');
    const { connectors } = ConnectorList.parse(
      await ask(ProxyOwnerEndpoints.connectorsList, { accountId: owner }),
    );
    expect(connectors.find((item) => item.name === 'stand-in')).toMatchObject({
      connection: 'healthy',
      canConnect: true,
      authorizationOrigin: provider.url,
    });
    const answer = await callApi();
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ items: ['one', 'two'] });
    expect(provider.refreshes).toBe(0);
    // The vault holds neither token in the clear: both are envelope-sealed under the active key.
    const rows = await db.vaultToken.findMany({ where: { accountId: owner } });
    expect(rows.map((row) => row.kind).sort()).toEqual(['oauth2', 'oauth2_refresh']);
    for (const row of rows) {
      expect(row.encryptedValue).toMatch(/^v2\./);
      expect(row.keyId).toBe(stack.keyRing.activeId);
      expect(row.wrappedKey).not.toBeNull();
    }
    await expectNoTokenInTheClear();
  }, 30_000);
});

describe('refreshing', () => {
  test('an expired token is refreshed once, before the call', async () => {
    const before = provider.refreshes;
    await expireAccessToken();
    expect((await callApi()).status).toBe(200);
    expect(provider.refreshes).toBe(before + 1);
    expect((await callApi()).status).toBe(200);
    expect(provider.refreshes).toBe(before + 1);
    expect(await health()).toBe('healthy');
  }, 30_000);

  test('a 401 to a token that had not expired: refreshed, the call of the brain repeated once', async () => {
    const before = provider.refreshes;
    expect((await callApi()).status).toBe(200);
    const current = provider.acceptedTokens.at(-1) ?? '';
    await provider.revokeAccessToken(current);
    // A trigger run's call (buffered): refreshed at once and made again with the new token.
    const run = await ask(ProxyEndpoints.callForward, {
      accountId: owner,
      agentId: 'ag_runner',
      clientId: 'client-runner',
      scopes: ['full'],
      service: 'stand-in',
      method: 'GET',
      path: 'items',
      query: {},
      body: null,
    });
    expect(run.status).toBe(200);
    expect(provider.refreshes).toBe(before + 1);
    await heardEverywhere();
    // Over HTTP the body has streamed: the 401 goes back, and the next call refreshes.
    await provider.revokeAccessToken(provider.acceptedTokens.at(-1) ?? '');
    expect((await callApi()).status).toBe(401);
    // The refused token is marked expired right after the 401 is passed on (not awaited by it).
    await eventually(
      async () => {
        const token = await db.vaultToken.findFirst({ where: { accountId: owner, kind: 'oauth2' } });
        return (
          token?.expiresAt !== null &&
          token?.expiresAt !== undefined &&
          token.expiresAt.getTime() <= Date.now()
        );
      },
      { what: 'the refused access token marked expired' },
    );
    await heardEverywhere();
    expect((await callApi(replica)).status).toBe(200);
    expect(provider.refreshes).toBe(before + 2);
  }, 30_000);

  test('20 concurrent calls at an expired token across two replicas: exactly one refresh', async () => {
    const before = provider.refreshes;
    await expireAccessToken();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => callApi(index % 2 === 0 ? stack.proxy : replica)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(provider.refreshes).toBe(before + 1);
    const connection = await db.connection.findUnique({
      where: { accountId_service: { accountId: owner, service: 'stand-in' } },
    });
    expect(connection?.refreshCount).toBe(4);
    await expectNoTokenInTheClear();
  }, 60_000);

  test('a refused refresh: needs_reconnect, an audit event, 409; reconnecting makes it healthy', async () => {
    provider.refuseRefresh = true;
    await expireAccessToken();
    const refused = await callApi();
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ error: { code: 'SERVICE_NOT_CONNECTED' } });
    expect(await health()).toBe('needs_reconnect');
    // Every later call is refused without asking the provider again.
    expect((await callApi(replica)).status).toBe(409);
    const failed = await eventually(
      () =>
        audit.find((event) => event.action === 'connection.refresh_failed' && event.accountId === owner) ??
        false,
      { what: 'the connection.refresh_failed audit event' },
    );
    expect(failed).toMatchObject({ target: 'stand-in', decision: 'error', reason: 'NEEDS_RECONNECT' });
    expect(failed.detail).toEqual({ oauthError: 'invalid_grant' });
    expect(audit.filter((event) => event.action === 'connection.refresh_failed')).toHaveLength(1);
    provider.refuseRefresh = false;
    await connect();
    expect(await health()).toBe('healthy');
    expect((await callApi()).status).toBe(200);
  }, 60_000);
});

test('disconnecting revokes at the provider, then forgets the connection', async () => {
  const done = await ask(ProxyOwnerEndpoints.disconnect, { accountId: owner, service: 'stand-in' });
  expect(done).toMatchObject({ service: 'stand-in', revoked: true });
  await heardEverywhere();
  expect(await health()).toBeUndefined();
  expect((await callApi()).status).toBe(409);
}, 30_000);

test('a key rotation rewraps the OAuth tokens; a proxy holding the new key alone calls and refreshes', async () => {
  await connect();
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
  const mine = { accountId: owner, service: 'stand-in' };
  const sealed = await db.vaultToken.findMany({ where: mine, orderBy: { kind: 'asc' } });
  expect(sealed.map((row) => [row.kind, row.keyId])).toEqual([
    ['oauth2', stack.keyRing.activeId],
    ['oauth2_refresh', stack.keyRing.activeId],
  ]);
  try {
    expect(await rotating.rotateKey()).toMatchObject({ activeId: 'new', rewrapped: 2, remaining: 0 });
  } finally {
    await rotating.close();
  }
  const rotated = await db.vaultToken.findMany({ where: mine, orderBy: { kind: 'asc' } });
  expect(rotated.map((row) => [row.kind, row.keyId])).toEqual([
    ['oauth2', 'new'],
    ['oauth2_refresh', 'new'],
  ]);
  // Only the data keys were rewrapped.
  expect(rotated.map((row) => row.encryptedValue)).toEqual(sealed.map((row) => row.encryptedValue));

  const newOnly = await stack.startAnother({
    VAULT_KEYS: `new:${newKey.toString('base64')}`,
    VAULT_ENCRYPTION_KEY: '',
  });
  try {
    expect((await callApi(newOnly)).status).toBe(200);
    const before = provider.refreshes;
    await expireAccessToken(newOnly);
    // The refresh token, rewrapped, opens with the new key alone; the new tokens go under it.
    expect((await callApi(newOnly)).status).toBe(200);
    expect(provider.refreshes).toBe(before + 1);
    const refreshed = await db.vaultToken.findMany({ where: mine, orderBy: { kind: 'asc' } });
    expect(refreshed.map((row) => [row.kind, row.keyId])).toEqual([
      ['oauth2', 'new'],
      ['oauth2_refresh', 'new'],
    ]);
    expect(refreshed[0]?.id).not.toBe(rotated[0]?.id);
  } finally {
    await newOnly.close();
  }
}, 60_000);

test('no token the provider issued, old or new, nor the client secret, is anywhere in the database in the clear', async () => {
  // By now the stand-in has answered codes of several connections and many refreshes, each with
  // a new access and refresh token; the last pair is in the vault, sealed.
  const issued = provider.issuedTokens;
  expect(issued.length).toBeGreaterThanOrEqual(16);
  expect(new Set(issued).size).toBe(issued.length);
  const stored = await db.vaultToken.count({ where: { accountId: owner, service: 'stand-in' } });
  expect(stored).toBe(2);
  expect(await countTables(stack.postgres.url)).toBeGreaterThanOrEqual(3);
  await expectNoTokenInTheClear();
}, 60_000);
