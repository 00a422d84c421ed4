/**
 * `pag vault rotate-key`'s core against a running proxy: tokens stored under an old key (and one
 * of the v1 format of before key ids) are moved to the new key in small batches while calls keep
 * going through the proxy, whose ring holds both keys. Every call succeeds, between batches and
 * meanwhile; afterwards nothing is under the old key, the old key is said to be retirable, and a
 * proxy holding the new key alone serves every account. The database holds no token in the clear.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createPrismaClient } from '@pag/kit';
import { countTables, findInTables } from '@pag/kit/testing';
import { proxyDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import type { ProxyStore } from '../src/operator/store-api-key.ts';
import { openProxyStore } from '../src/operator/store-api-key.ts';
import type { RunningProxy } from '../src/service.ts';
import { VaultKeyRing } from '../src/vault/key-ring.ts';
import { FakeUpstream } from './support/fake-upstream.ts';
import { httpCall } from './support/http-call.ts';
import { sealV1 } from './support/legacy-v1.ts';
import type { TestProxy } from './support/start-test-proxy.ts';
import { API_AUDIENCE, startTestProxy } from './support/start-test-proxy.ts';

const ACCOUNTS = 12;
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const b64 = (key: Buffer) => key.toString('base64');

let stack: TestProxy;
let upstream: FakeUpstream;
let prisma: PrismaClient;
/** The operator before the rotation: its ring has the old key only. */
let before: ProxyStore;
/** The operator rotating: both keys, the new one active. */
let rotating: ProxyStore;
const owners = Array.from({ length: ACCOUNTS }, (_, index) => ({
  accountId: randomUUID(),
  token: `agent-token-${index}`,
  secret: `ghp_rotationSecret${index}_${randomBytes(6).toString('hex')}`,
}));

beforeAll(async () => {
  upstream = await FakeUpstream.start();
  stack = await startTestProxy({
    CONNECTOR_BASE_URLS: JSON.stringify({ github: upstream.url }),
    // Every replica holds the new key before the rotation starts; the new one is active.
    VAULT_KEYS: `new:${b64(newKey)},old:${b64(oldKey)}`,
    VAULT_ACTIVE_KEY_ID: 'new',
  });
  before = openProxyStore({
    databaseUrl: stack.postgres.url,
    keyRing: new VaultKeyRing(new Map([['old', oldKey]]), 'old'),
  });
  rotating = openProxyStore({
    databaseUrl: stack.postgres.url,
    keyRing: new VaultKeyRing(
      new Map([
        ['new', newKey],
        ['old', oldKey],
      ]),
      'new',
    ),
  });
  prisma = createPrismaClient(PrismaClient, {
    databaseUrl: stack.postgres.url,
    schema: proxyDatabase.schema,
  });
  for (const owner of owners) {
    await before.storeApiKeyConnection({
      accountId: owner.accountId,
      service: 'github',
      label: 'main',
      value: owner.secret,
    });
    stack.auth.issue(owner.token, { accountId: owner.accountId, scopes: ['full'], audience: API_AUDIENCE });
  }
  // The first owner's token as the vault stored it before key ids: v1, directly under the old key.
  const first = owners[0];
  if (first === undefined) throw new Error('no owner');
  const row = await prisma.vaultToken.findFirstOrThrow({ where: { accountId: first.accountId } });
  await prisma.vaultToken.update({
    where: { id: row.id },
    data: {
      keyId: null,
      wrappedKey: null,
      encryptedValue: sealV1(first.secret, oldKey, {
        tokenId: row.id,
        accountId: first.accountId,
        service: 'github',
      }),
    },
  });
}, 60_000);

afterAll(async () => {
  await before?.close();
  await rotating?.close();
  await prisma?.$disconnect();
  await stack?.[Symbol.asyncDispose]();
  await upstream?.[Symbol.asyncDispose]();
});

/** One call as an owner's agent; the stand-in answers 201 with what reached it. */
async function callAs(proxy: RunningProxy, owner: (typeof owners)[number]): Promise<void> {
  const answer = await httpCall(`${proxy.url}/api/v1/services/github/user`, {
    headers: { authorization: `Bearer ${owner.token}` },
  });
  expect(answer.status).toBe(201);
  const arrival = answer.json() as { headers: Record<string, string> };
  expect(arrival.headers.authorization).toBe(`Bearer ${owner.secret}`);
}

describe('rotating the vault key', () => {
  test('while calls run: every call succeeds, and afterwards nothing is under the old key', async () => {
    expect(await rotating.keyStatus()).toMatchObject({
      activeId: 'new',
      usage: [
        { keyId: 'old', tokens: ACCOUNTS - 1 },
        { keyId: null, tokens: 1 },
      ],
      remaining: ACCOUNTS,
      retirable: [],
    });

    // Calls run all along, each owner in turn, until the rotation is over.
    let rotating_ = true;
    let made = 0;
    const failures: unknown[] = [];
    const callers = Array.from({ length: 3 }, async (_, lane) => {
      for (let index = lane; rotating_; index += 1) {
        const owner = owners[index % ACCOUNTS];
        if (owner === undefined) continue;
        await callAs(stack.proxy, owner).catch((error: unknown) => failures.push(error));
        made += 1;
      }
    });
    let batches = 0;
    const report = await rotating
      .rotateKey({
        batchSize: 2,
        // Between batches, some tokens under the new key and some still under the old: every
        // owner's call goes through.
        onBatch: async () => {
          batches += 1;
          for (const owner of owners) await callAs(stack.proxy, owner);
        },
      })
      .finally(() => {
        rotating_ = false;
      });
    await Promise.all(callers);

    expect(failures).toEqual([]);
    expect(made).toBeGreaterThan(0);
    expect(batches).toBe(ACCOUNTS / 2);
    expect(report).toMatchObject({
      activeId: 'new',
      rewrapped: ACCOUNTS,
      usage: [{ keyId: 'new', tokens: ACCOUNTS }],
      remaining: 0,
    });
    expect(report.retirable).toContain('old');
    expect(
      await prisma.vaultToken.count({ where: { OR: [{ keyId: null }, { keyId: { not: 'new' } }] } }),
    ).toBe(0);
  });

  test('only the data keys were rewrapped: the ciphertexts of envelope tokens are unchanged', async () => {
    // Stored again under the old key, rotated, compared.
    const accountId = randomUUID();
    const stored = await before.storeApiKeyConnection({
      accountId,
      service: 'github',
      label: 'x',
      value: 'ghp_unchanged',
    });
    const sealed = await prisma.vaultToken.findUniqueOrThrow({ where: { id: stored.token.id } });
    expect((await rotating.rotateKey()).rewrapped).toBe(1);
    const rotated = await prisma.vaultToken.findUniqueOrThrow({ where: { id: stored.token.id } });
    expect(rotated.encryptedValue).toBe(sealed.encryptedValue);
    expect(rotated.keyId).toBe('new');
    expect(rotated.wrappedKey).not.toBe(sealed.wrappedKey);
  });

  test('a proxy holding the new key alone serves every owner', async () => {
    const newOnly = await stack.startAnother({ VAULT_KEYS: `new:${b64(newKey)}`, VAULT_ENCRYPTION_KEY: '' });
    try {
      for (const owner of owners) await callAs(newOnly, owner);
    } finally {
      await newOnly.close();
    }
  });

  test('the database holds no token in the clear, in any column of any row of any table', async () => {
    expect(await countTables(stack.postgres.url)).toBeGreaterThanOrEqual(2);
    expect(await prisma.vaultToken.count()).toBe(ACCOUNTS + 1);
    expect(
      await findInTables(stack.postgres.url, [...owners.map((owner) => owner.secret), 'ghp_unchanged']),
    ).toEqual([]);
  });
});
