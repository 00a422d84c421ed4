/**
 * The listings on the bus (proxy.services.list, proxy.vault-tokens.list, proxy.connectors.list),
 * asked the way the gateway asks: caller in the identity headers. Fresh accounts see empty
 * lists; one account never sees another's connections or tokens; replies match the contracts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  AppError,
  ConnectorList,
  MessageHeaders,
  ProxySubjects,
  ServiceList,
  VaultTokenList,
} from '@pag/contracts';
import { createPrismaClient } from '@pag/kit';
import { CONNECTOR_NAMES } from '../src/connectors/catalogue.ts';
import { proxyDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import type { TestProxy } from './support/start-test-proxy.ts';
import { startTestProxy } from './support/start-test-proxy.ts';

let stack: TestProxy;
const accountA = randomUUID();
const accountB = randomUUID();

beforeAll(async () => {
  stack = await startTestProxy();
}, 60_000);
afterAll(async () => {
  await stack?.[Symbol.asyncDispose]();
});

function ask(subject: string, accountId: string | undefined, scopes = 'services:read') {
  const headers: Record<string, string> = {
    [MessageHeaders.requestId]: 'req-1',
    [MessageHeaders.scopes]: scopes,
  };
  if (accountId !== undefined) headers[MessageHeaders.accountId] = accountId;
  return stack.bus.request(subject, { params: {}, query: {}, body: null }, { timeoutMs: 5_000, headers });
}

describe('a fresh account', () => {
  test('has no services, no vault tokens, and every connector unconnected', async () => {
    const account = randomUUID();
    expect(ServiceList.parse(await ask(ProxySubjects.servicesList, account))).toEqual({ services: [] });
    expect(VaultTokenList.parse(await ask(ProxySubjects.vaultTokensList, account))).toEqual({ tokens: [] });
    const { connectors } = ConnectorList.parse(await ask(ProxySubjects.connectorsList, account));
    expect(connectors.map((connector) => connector.name)).toEqual(CONNECTOR_NAMES);
    expect(connectors.every((connector) => !connector.connected)).toBe(true);
    expect(connectors.find((connector) => connector.name === 'figma')).toEqual({
      name: 'figma',
      displayName: 'Figma',
      authType: 'api_key',
      connected: false,
      resources: ['me', 'files', 'images', 'teams', 'projects'],
      readAccess: expect.stringContaining('GET and HEAD'),
      connection: 'not_connected',
      canConnect: true,
      authorizationOrigin: null,
      client: null,
      owned: false,
    });
    expect(connectors.find((connector) => connector.name === 'slack')?.readAccess).toContain(
      'chat.postMessage',
    );
  });
});

describe('services', () => {
  test('each connection by name, with its status and the time it was connected as stored; services no longer in the catalogue left out', async () => {
    const account = randomUUID();
    const db = createPrismaClient(PrismaClient, {
      databaseUrl: stack.postgres.url,
      schema: proxyDatabase.schema,
    });
    try {
      await db.connection.createMany({
        data: [
          {
            accountId: account,
            service: 'slack',
            status: 'error',
            connectedAt: new Date('2026-03-04T05:06:07.000Z'),
          },
          {
            accountId: account,
            service: 'retired-service',
            connectedAt: new Date('2026-01-01T00:00:00.000Z'),
          },
          { accountId: account, service: 'github', connectedAt: new Date('1999-12-31T23:59:59.999Z') },
          {
            accountId: account,
            service: 'figma',
            status: 'expired',
            connectedAt: new Date('2026-11-24T09:05:00.050Z'),
          },
        ],
      });
    } finally {
      await db.$disconnect();
    }
    expect(ServiceList.parse(await ask(ProxySubjects.servicesList, account)).services).toEqual([
      {
        name: 'figma',
        displayName: 'Figma',
        status: 'expired',
        health: 'needs_reconnect',
        connectedAt: '2026-11-24T09:05:00.050Z',
      },
      {
        name: 'github',
        displayName: 'GitHub',
        status: 'connected',
        health: 'healthy',
        connectedAt: '1999-12-31T23:59:59.999Z',
      },
      {
        name: 'slack',
        displayName: 'Slack',
        status: 'error',
        health: 'needs_reconnect',
        connectedAt: '2026-03-04T05:06:07.000Z',
      },
    ]);
  });
});

describe('tenancy', () => {
  beforeAll(async () => {
    await stack.operator.storeApiKeyConnection({
      accountId: accountA,
      service: 'github',
      label: 'personal access token',
      value: 'ghp_accountA_secret',
      scopes: ['repo', 'read:user'],
    });
    await stack.operator.storeApiKeyConnection({
      accountId: accountB,
      service: 'notion',
      label: 'workspace',
      value: 'secret_accountB_notion',
    });
  });

  test("each account sees its own connection and never the other's", async () => {
    const servicesA = ServiceList.parse(await ask(ProxySubjects.servicesList, accountA));
    const servicesB = ServiceList.parse(await ask(ProxySubjects.servicesList, accountB));
    expect(servicesA.services).toEqual([
      {
        name: 'github',
        displayName: 'GitHub',
        status: 'connected',
        health: 'healthy',
        connectedAt: expect.any(String),
      },
    ]);
    expect(servicesB.services.map((service) => service.name)).toEqual(['notion']);
  });

  test("each account sees its own tokens' metadata, never a value, never the other's", async () => {
    const replyA = await ask(ProxySubjects.vaultTokensList, accountA);
    const tokensA = VaultTokenList.parse(replyA).tokens;
    expect(tokensA).toEqual([
      {
        id: expect.any(String),
        service: 'github',
        label: 'personal access token',
        kind: 'api_key',
        scopes: ['repo', 'read:user'],
        keyId: stack.keyRing.activeId,
        connectionStatus: 'connected',
        createdAt: expect.any(String),
        expiresAt: null,
        lastUsedAt: null,
      },
    ]);
    expect(JSON.stringify(replyA)).not.toContain('ghp_accountA_secret');
    expect(JSON.stringify(replyA)).not.toContain('encrypted');
    expect(JSON.stringify(replyA)).not.toMatch(/wrapped|v2\./);
    const tokensB = VaultTokenList.parse(await ask(ProxySubjects.vaultTokensList, accountB)).tokens;
    expect(tokensB.map((token) => [token.service, token.label])).toEqual([['notion', 'workspace']]);
    expect(tokensB[0]?.id).not.toBe(tokensA[0]?.id);
  });

  test("the connectors' connected flag follows the caller's account", async () => {
    const connectedOf = async (account: string) =>
      ConnectorList.parse(await ask(ProxySubjects.connectorsList, account))
        .connectors.filter((connector) => connector.connected)
        .map((connector) => connector.name);
    expect(await connectedOf(accountA)).toEqual(['github']);
    expect(await connectedOf(accountB)).toEqual(['notion']);
  });
});

describe('the caller in the headers', () => {
  test('is required and must be an account id', async () => {
    for (const account of [undefined, 'not-a-uuid', '']) {
      await expect(ask(ProxySubjects.servicesList, account)).rejects.toMatchObject({
        code: 'AUTHENTICATION_REQUIRED',
        status: 401,
      });
    }
  });

  test('vault tokens need services:read, as the route table says', async () => {
    const refused = ask(ProxySubjects.vaultTokensList, accountA, 'services:github:read');
    await expect(refused).rejects.toBeInstanceOf(AppError);
    await expect(refused).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
    const allowed = VaultTokenList.parse(await ask(ProxySubjects.vaultTokensList, accountA, 'full'));
    expect(allowed.tokens).toHaveLength(1);
  });
});
