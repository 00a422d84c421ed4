/**
 * The credential of recent calls comes from memory (calls/credential-cache.ts), and every change
 * to a connection or vault token reaches every replica at once (store/credential-changes.ts: the
 * tables' trigger, LISTEN), whoever wrote it: here the operator's own store, as `pag` writes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createPrismaClient } from '@pag/kit';
import { eventually } from '@pag/kit/testing';
import { proxyDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import type { RunningProxy } from '../src/service.ts';
import { FakeUpstream } from './support/fake-upstream.ts';
import { httpCall } from './support/http-call.ts';
import type { TestProxy } from './support/start-test-proxy.ts';
import { API_AUDIENCE, startTestProxy } from './support/start-test-proxy.ts';

const owner = randomUUID();
let stack: TestProxy;
let replica: RunningProxy;
let upstream: FakeUpstream;
let db: PrismaClient;

beforeAll(async () => {
  upstream = await FakeUpstream.start();
  const env = { CONNECTOR_BASE_URLS: JSON.stringify({ github: upstream.url }) };
  stack = await startTestProxy(env);
  replica = await stack.startAnother(env);
  db = createPrismaClient(PrismaClient, { databaseUrl: stack.postgres.url, schema: proxyDatabase.schema });
  stack.auth.issue('github-token', {
    accountId: owner,
    scopes: ['services:github:read'],
    audience: API_AUDIENCE,
  });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await replica?.close();
  await stack?.[Symbol.asyncDispose]();
  await upstream?.[Symbol.asyncDispose]();
});

/** A call through `proxy`; the credential that reached the upstream, or the error code. */
async function call(proxy: RunningProxy): Promise<string> {
  const answer = await httpCall(`${proxy.url}/api/v1/services/github/user`, {
    headers: { authorization: 'Bearer github-token' },
  });
  if (answer.status >= 300) return (answer.json() as { error: { code: string } }).error.code;
  return String(upstream.arrivals.at(-1)?.headers.authorization);
}

const connect = (value: string) =>
  stack.operator.storeApiKeyConnection({ accountId: owner, service: 'github', label: 'main', value });

/**
 * Rows removed without the tables' triggers (session_replication_role = replica, PostgreSQL's way to
 * write without firing them): a change nobody announces, so what a call then uses shows where it
 * read its credential.
 */
async function removeUnannounced(): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
    await tx.$executeRaw`DELETE FROM proxy.vault_tokens WHERE account_id = ${owner}::uuid`;
    await tx.$executeRaw`DELETE FROM proxy.connections WHERE account_id = ${owner}::uuid`;
  });
}

test('calls within seconds of each other use the credential in memory, not the vault', async () => {
  await connect('key-one');
  expect(await call(stack.proxy)).toBe('Bearer key-one');
  await removeUnannounced();
  // Read again per call, the credential would be gone (409 SERVICE_NOT_CONNECTED).
  expect(await call(stack.proxy)).toBe('Bearer key-one');
});

test('a replaced key is used on every replica as soon as the write commits', async () => {
  await connect('key-two');
  expect(await call(replica)).toBe('Bearer key-two');
  await connect('key-three');
  for (const proxy of [stack.proxy, replica]) {
    await eventually(async () => expect(await call(proxy)).toBe('Bearer key-three'), {
      what: 'the replaced key is used',
      // Well under the cache's own lifetime (CREDENTIAL_CACHE_MS, 5 s): the announcement did it.
      timeoutMs: 2_000,
    });
  }
});

test('a disconnected service is refused at once, though its credential was in memory', async () => {
  expect(await call(stack.proxy)).toBe('Bearer key-three');
  await db.$executeRaw`DELETE FROM proxy.connections WHERE account_id = ${owner}::uuid`;
  await eventually(async () => expect(await call(stack.proxy)).toBe('SERVICE_NOT_CONNECTED'), {
    what: 'the disconnected service is refused',
    timeoutMs: 2_000,
  });
});

test('last_used_at is written once per token per second, not per call', async () => {
  await connect('key-four');
  for (let i = 0; i < 10; i += 1) expect(await call(stack.proxy)).toBe('Bearer key-four');
  const used = await eventually(
    async () => {
      const [row] = await db.vaultToken.findMany({
        where: { accountId: owner },
        select: { lastUsedAt: true },
      });
      return row?.lastUsedAt ?? false;
    },
    { what: 'last_used_at written' },
  );
  expect(used.getTime()).toBeLessThanOrEqual(Date.now());
});

test('while a proxy cannot hear changes it reads every credential from the database, and listens again', async () => {
  await connect('key-five');
  // The replaced key is announced, not waited for by the write: the call right after may still
  // find key-four in memory for the moment the notification takes.
  await eventually(async () => expect(await call(stack.proxy)).toBe('Bearer key-five'), {
    what: 'the replaced key is used',
    timeoutMs: 2_000,
  });
  // The listening connections are cut (as a failover or a restart of PostgreSQL would).
  await db.$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pag-listen-proxy_credentials'`;
  await removeUnannounced();
  await eventually(async () => expect(await call(stack.proxy)).toBe('SERVICE_NOT_CONNECTED'), {
    what: 'the proxy stops answering from memory',
    // Under the cache's own lifetime (5 s), so the lost connection did it; not 2 s, which a
    // loaded two-core machine missed once (the listener hears of the cut through the pool).
    timeoutMs: 4_000,
  });
  // Reconnected (kit's listener retries after 1 s), the memory serves again.
  await eventually(
    async () => {
      await connect('key-six');
      expect(await call(stack.proxy)).toBe('Bearer key-six');
      await removeUnannounced();
      expect(await call(stack.proxy)).toBe('Bearer key-six');
    },
    { what: 'the proxy listens again', timeoutMs: 15_000, intervalMs: 200 },
  );
});
