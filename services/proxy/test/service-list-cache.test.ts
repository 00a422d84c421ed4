/**
 * proxy.services.list (asked on every gateway context) keeps each account's list in memory
 * (store/service-list-cache.ts), and is never older than a change committed before it was asked,
 * whoever wrote it and on whichever replica it is answered: no waiting for the announcement.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { MessageHeaders, ProxySubjects, ServiceList } from '@pag/contracts';
import { createPrismaClient } from '@pag/kit';
import { eventually } from '@pag/kit/testing';
import { proxyDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import type { RunningProxy } from '../src/service.ts';
import type { TestProxy } from './support/start-test-proxy.ts';
import { startTestProxy } from './support/start-test-proxy.ts';

const owner = randomUUID();
let stack: TestProxy;
let replica: RunningProxy;
let db: PrismaClient;

beforeAll(async () => {
  stack = await startTestProxy();
  replica = await stack.startAnother({});
  db = createPrismaClient(PrismaClient, { databaseUrl: stack.postgres.url, schema: proxyDatabase.schema });
}, 60_000);

afterAll(async () => {
  await db?.$disconnect();
  await replica?.close();
  await stack?.[Symbol.asyncDispose]();
});

/** The names in the owner's list, as the gateway's context asks for it (any replica answers). */
async function listed(): Promise<string[]> {
  const reply = await stack.bus.request(
    ProxySubjects.servicesList,
    { params: {}, query: {}, body: null },
    {
      timeoutMs: 5_000,
      headers: {
        [MessageHeaders.requestId]: 'req-1',
        [MessageHeaders.accountId]: owner,
        [MessageHeaders.scopes]: 'full',
      },
    },
  );
  return ServiceList.parse(reply).services.map((service) => service.name);
}

/**
 * Asks for the list until both replicas keep it. The bus gives each request to one replica; on
 * nats-server the queue group's member is picked at random, so four requests left one replica
 * without the list in 6 rounds of 40, and that replica then read the unannounced removal from the
 * database (`[]` in CI). On the in-memory bus (round-robin) the first two requests do it.
 */
async function keptByBoth(expected: string[]): Promise<void> {
  await eventually(
    async () => {
      expect(await listed()).toEqual(expected);
      expect({ first: stack.proxy.serviceLists.has(owner), second: replica.serviceLists.has(owner) }).toEqual(
        {
          first: true,
          second: true,
        },
      );
    },
    { what: 'both replicas keep the list', timeoutMs: 10_000 },
  );
}

const connect = (service: string) =>
  stack.operator.storeApiKeyConnection({ accountId: owner, service, label: 'main', value: `key-${service}` });

/**
 * The owner's rows removed without the tables' triggers (session_replication_role = replica): a
 * change nobody announces, so what the list then shows says where it was read.
 */
async function removeUnannounced(): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.$executeRawUnsafe('SET LOCAL session_replication_role = replica');
    await tx.$executeRaw`DELETE FROM proxy.vault_tokens WHERE account_id = ${owner}::uuid`;
    await tx.$executeRaw`DELETE FROM proxy.connections WHERE account_id = ${owner}::uuid`;
  });
}

/** The owner's rows removed as any writer does: the trigger announces it at the commit. */
async function removeAnnounced(): Promise<void> {
  await db.$executeRaw`DELETE FROM proxy.vault_tokens WHERE account_id = ${owner}::uuid`;
  await db.$executeRaw`DELETE FROM proxy.connections WHERE account_id = ${owner}::uuid`;
}

test('an unchanged list is answered from memory, not read again', async () => {
  await connect('github');
  await keptByBoth(['github']);
  await removeUnannounced();
  // Read again per request, the list would be empty.
  for (let i = 0; i < 4; i += 1) expect(await listed()).toEqual(['github']);
  // An announced change makes every replica read it again (the unannounced removal shows too).
  await connect('notion');
  for (let i = 0; i < 4; i += 1) expect(await listed()).toEqual(['notion']);
  await removeAnnounced();
  expect(await listed()).toEqual([]);
});

test('a change committed before the list is asked is in it at once, on every replica', async () => {
  for (let round = 0; round < 25; round += 1) {
    await connect('github');
    if (round % 2 === 1) await connect('notion');
    // No waiting for the announcement: the list waits for the listener's round trip itself.
    expect(await listed()).toEqual(round % 2 === 1 ? ['github', 'notion'] : ['github']);
    expect(await listed()).toEqual(round % 2 === 1 ? ['github', 'notion'] : ['github']);
    await removeAnnounced();
    expect(await listed()).toEqual([]);
    expect(await listed()).toEqual([]);
  }
});

test('while a proxy cannot hear changes it reads every list from the database, and listens again', async () => {
  await connect('github');
  expect(await listed()).toEqual(['github']);
  // The listening connections are cut (as a failover or a restart of PostgreSQL would).
  await db.$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pag-listen-proxy_credentials'`;
  await removeUnannounced();
  await eventually(async () => expect(await listed()).toEqual([]), {
    what: 'the lists are read from the database',
    timeoutMs: 4_000,
  });
  // Reconnected (kit's listener retries after 1 s), the memory serves again.
  await eventually(
    async () => {
      await connect('github');
      await keptByBoth(['github']);
      await removeUnannounced();
      for (let i = 0; i < 4; i += 1) expect(await listed()).toEqual(['github']);
    },
    { what: 'the proxies listen again', timeoutMs: 15_000, intervalMs: 200 },
  );
});
