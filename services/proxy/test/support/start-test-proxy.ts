/**
 * A proxy service for tests that drive it from outside: a fresh PostgreSQL with the proxy's
 * migrations, a stand-in auth service for introspection, a broker (the in-memory one, or a real
 * nats-server when the test run chose it: startTestBroker) with each proxy on its own connection
 * and the test on another (the gateway's place), and the service on a free loopback port.
 * Everything stops (by its own handle) on dispose.
 */
import { randomBytes } from 'node:crypto';
import type { Bus, Env } from '@pag/kit';
import { applyMigrations, createLogger, createMetrics } from '@pag/kit';
import type { TestBroker, TestPostgres } from '@pag/kit/testing';
import {
  FakeAuthServer,
  startTestBroker,
  startTestPostgres,
  TEST_GATEWAY_SECRET,
  TEST_INTROSPECTION_CLIENT,
  TEST_TOKEN_TAG_KEY,
} from '@pag/kit/testing';
import { loadProxyConfig } from '../../src/config.ts';
import { proxyDatabase } from '../../src/database.ts';
import type { ProxyStore } from '../../src/operator/store-api-key.ts';
import { openProxyStore } from '../../src/operator/store-api-key.ts';
import type { RunningProxy } from '../../src/service.ts';
import { startProxy } from '../../src/service.ts';

export const PUBLIC_URL = 'http://gateway.test';
export const API_AUDIENCE = `${PUBLIC_URL}/api/v1`;

export interface TestProxy extends AsyncDisposable {
  proxy: RunningProxy;
  auth: FakeAuthServer;
  /** The broker the proxies and the test are connected to (memory or nats, as the test run chose). */
  broker: TestBroker;
  /** The test's own connection to the broker (the gateway's place). */
  bus: Bus;
  postgres: TestPostgres;
  /** The operator's view of the same data, with the same vault key. */
  operator: ProxyStore;
  vaultKey: Buffer;
  /** Another proxy on the same database, auth and vault key, with these settings on top. */
  startAnother(env: Env): Promise<RunningProxy>;
}

export async function startTestProxy(env: Env = {}): Promise<TestProxy> {
  const postgres = await startTestPostgres();
  const auth = await FakeAuthServer.start();
  const logger = createLogger({ service: 'proxy', level: 'silent' });
  const vaultKey = randomBytes(32);
  let broker: TestBroker | undefined;
  try {
    broker = await startTestBroker({ logger });
    const bus = await broker.connect('gateway');
    await applyMigrations({ databaseUrl: postgres.url, ...proxyDatabase });
    const baseEnv: Env = {
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL,
      DATABASE_URL: postgres.url,
      VAULT_ENCRYPTION_KEY: vaultKey.toString('base64'),
      AUTH_URL: auth.url,
      INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
      INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
      GATEWAY_SECRET: TEST_GATEWAY_SECRET,
      TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
      ...env,
    };
    const { connect } = broker;
    const start = async (more: Env) =>
      startProxy({
        config: loadProxyConfig({ ...baseEnv, ...more }),
        bus: await connect('proxy'),
        logger,
        metrics: createMetrics({ defaultMetrics: false }),
      });
    const proxy = await start({});
    const others: RunningProxy[] = [];
    const operator = openProxyStore({ databaseUrl: postgres.url, vaultKey });
    return {
      proxy,
      auth,
      broker,
      bus,
      postgres,
      operator,
      vaultKey,
      async startAnother(more) {
        const another = await start(more);
        others.push(another);
        return another;
      },
      [Symbol.asyncDispose]: async () => {
        for (const other of others) await other.close();
        await proxy.close();
        await operator.close();
        await broker?.close();
        await auth[Symbol.asyncDispose]();
        await postgres.stop();
      },
    };
  } catch (error) {
    await broker?.close();
    await auth[Symbol.asyncDispose]();
    await postgres.stop();
    throw error;
  }
}
