/**
 * storeApiKeyConnection against a real PostgreSQL: what the `pag` CLI calls to connect a service
 * for an owner until the OAuth connect flow exists.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { applyMigrations, createPrismaClient } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { resolveConnectors } from '../connectors/catalogue.ts';
import { proxyDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { VaultStore } from '../store/vault-store.ts';
import { VaultKeyRing } from '../vault/key-ring.ts';
import { VaultKeyError } from '../vault/token-cipher.ts';
import type { ProxyStore } from './store-api-key.ts';
import { openProxyStore, storeApiKeyConnection } from './store-api-key.ts';

let postgres: TestPostgres;
let store: ProxyStore;
let prisma: PrismaClient;
const keyRing = VaultKeyRing.single(randomBytes(32));

beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...proxyDatabase });
  store = openProxyStore({ databaseUrl: postgres.url, keyRing });
  prisma = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: proxyDatabase.schema });
}, 60_000);

afterAll(async () => {
  await store?.close();
  await prisma?.$disconnect();
  await postgres?.stop();
});

describe('storeApiKeyConnection', () => {
  test('connects the service and stores the value encrypted, returning metadata only', async () => {
    const accountId = randomUUID();
    const stored = await store.storeApiKeyConnection({
      accountId,
      service: 'stripe',
      label: 'live key',
      value: 'sk_live_0123456789',
      scopes: ['read_only'],
    });
    expect(stored.service).toEqual({
      name: 'stripe',
      displayName: 'Stripe',
      status: 'connected',
      health: 'healthy',
      connectedAt: expect.any(String),
    });
    expect(stored.token).toMatchObject({
      service: 'stripe',
      label: 'live key',
      kind: 'api_key',
      scopes: ['read_only'],
    });
    expect(JSON.stringify(stored)).not.toContain('sk_live_0123456789');
    expect(await store.listConnections(accountId)).toEqual([stored.service]);
    expect(await store.listTokens(accountId)).toEqual([stored.token]);

    const row = await prisma.vaultToken.findUniqueOrThrow({ where: { id: stored.token.id } });
    expect(row.encryptedValue).toMatch(/^v2\./);
    expect(row.keyId).toBe(keyRing.activeId);
    expect(row.wrappedKey).not.toContain('sk_live');
    expect(row.encryptedValue).not.toContain('sk_live');
    expect(row.accountId).toBe(accountId);
  });

  test('the same label replaces the key; another label adds one', async () => {
    const accountId = randomUUID();
    const input = { accountId, service: 'github', label: 'pat', value: 'ghp_first' };
    const first = await store.storeApiKeyConnection(input);
    const second = await store.storeApiKeyConnection({ ...input, value: 'ghp_second' });
    expect(second.token.id).not.toBe(first.token.id);
    await store.storeApiKeyConnection({ ...input, label: 'bot', value: 'ghp_bot' });
    const tokens = await store.listTokens(accountId);
    expect(tokens.map((token) => token.label).sort()).toEqual(['bot', 'pat']);
    expect(tokens.find((token) => token.label === 'pat')?.id).toBe(second.token.id);
  });

  test('bad input is refused field by field, never quoting the value', async () => {
    const attempt = store.storeApiKeyConnection({
      accountId: 'owner@example.com',
      service: 'myspace',
      label: ' ',
      value: 'secret with spaces\r\nx-injected: 1',
    });
    await expect(attempt).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    const message = await attempt.catch((error: Error) => error.message);
    for (const field of ['accountId', 'service', 'label', 'value']) expect(message).toContain(`${field}:`);
    expect(message).toContain('no connector named "myspace"');
    expect(message).not.toContain('secret with spaces');
  });

  test.each([
    ['a line break', 'pat\nother'],
    ['an escape sequence', 'pat\u001b[2J'],
    ['a bidi override', 'pat\u202e'],
  ])('a label with %s is refused like every name', async (_what, label) => {
    const attempt = store.storeApiKeyConnection({
      accountId: randomUUID(),
      service: 'github',
      label,
      value: 'ghp_value',
    });
    await expect(attempt).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(await attempt.catch((error: Error) => error.message)).toContain(
      'label: must not contain control characters',
    );
  });

  test('a vault opened with another key cannot read the credential, and says why', async () => {
    const accountId = randomUUID();
    await store.storeApiKeyConnection({ accountId, service: 'notion', label: 'ws', value: 'ntn_value' });
    const connectors = resolveConnectors();
    const right = new VaultStore({ prisma, keyRing, connectors });
    expect(await right.credentialFor(accountId, 'notion')).toMatchObject({
      state: 'connected',
      value: 'ntn_value',
    });
    const wrong = new VaultStore({ prisma, keyRing: VaultKeyRing.single(randomBytes(32)), connectors });
    const failure = wrong.credentialFor(accountId, 'notion');
    await expect(failure).rejects.toBeInstanceOf(VaultKeyError);
    await expect(failure).rejects.toThrow(/is not in the key ring \(VAULT_KEYS \/ VAULT_ENCRYPTION_KEY\)/);
  });

  test('the one-call form opens the database, stores and closes', async () => {
    const accountId = randomUUID();
    const stored = await storeApiKeyConnection(
      { accountId, service: 'figma', label: 'pat', value: 'figd_x' },
      { databaseUrl: postgres.url, keyRing },
    );
    expect(stored.service.name).toBe('figma');
    expect((await store.listConnections(accountId)).map((service) => service.name)).toEqual(['figma']);
  });
});

describe('behind a busy connection pool', () => {
  test("the store's transaction waits for the connection past Prisma's 2 s default instead of failing", async () => {
    const single = createPrismaClient(PrismaClient, {
      databaseUrl: postgres.url,
      schema: proxyDatabase.schema,
      maxConnections: 1,
    });
    try {
      const vault = new VaultStore({ prisma: single, keyRing, connectors: resolveConnectors() });
      // The pool's one connection is busy for 2.5 s (a slow transaction, or a new connection to a
      // loaded database): the store's transaction can only start after it.
      const { promise: holding, resolve: held } = Promise.withResolvers<void>();
      const slow = single.$transaction(async (tx) => {
        held();
        await tx.$executeRaw`SELECT pg_sleep(2.5)`;
      });
      await holding;
      const accountId = randomUUID();
      const stored = await vault.storeApiKeyConnection({
        accountId,
        service: 'github',
        label: 'pat',
        value: 'ghp_waited',
        scopes: [],
      });
      await slow;
      expect(stored.service).toMatchObject({ name: 'github', status: 'connected' });
    } finally {
      await single.$disconnect();
    }
  });

  test("a transaction whose statements take longer than Prisma's 5 s default is not rolled back", async () => {
    const client = createPrismaClient(PrismaClient, {
      databaseUrl: postgres.url,
      schema: proxyDatabase.schema,
    });
    try {
      // As on a loaded machine where the store's few statements took 6.6 s in all: kit's
      // TRANSACTION_TIMEOUT_MS lets the work finish instead of failing it with P2028.
      const answer = await client.$transaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_sleep(5.2)`;
        return tx.$queryRaw<{ ok: number }[]>`SELECT 1 AS ok`;
      });
      expect(answer).toEqual([{ ok: 1 }]);
    } finally {
      await client.$disconnect();
    }
  }, 20_000);
});
