/**
 * A proxy service for tests that drive it from outside, on testkit's startService: a fresh PostgreSQL with the proxy's
 * migrations, a stand-in auth service for introspection, a broker (the in-memory one, or a real
 * nats-server when the test run chose it: startTestBroker) with each proxy on its own connection
 * and the test on another (the gateway's place), and the service on a free loopback port.
 * Everything stops (by its own handle) on dispose.
 */
import { randomBytes } from 'node:crypto';
import type { Bus, Env } from '@pag/kit';
import type { TestBroker, TestPostgres } from '@pag/kit/testing';
import {
  FakeAuthServer,
  TEST_GATEWAY_SECRET,
  TEST_INTROSPECTION_CLIENT,
  TEST_TOKEN_TAG_KEY,
} from '@pag/kit/testing';
import { startService } from '@pag/testkit';
import { proxyService } from '../../src/definition.ts';
import type { ProxyStore } from '../../src/operator/store-api-key.ts';
import { openProxyStore } from '../../src/operator/store-api-key.ts';
import type { RunningProxy } from '../../src/service.ts';
import { VaultKeyRing } from '../../src/vault/key-ring.ts';

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
  /** The proxy's key ring: vaultKey alone, under its derived id. */
  keyRing: VaultKeyRing;
  /** Another proxy on the same database, auth and vault key, with these settings on top. */
  startAnother(env: Env): Promise<RunningProxy>;
}

export async function startTestProxy(env: Env = {}): Promise<TestProxy> {
  const auth = await FakeAuthServer.start();
  const vaultKey = randomBytes(32);
  try {
    const started = await startService(proxyService, {
      env: {
        PUBLIC_URL,
        VAULT_ENCRYPTION_KEY: vaultKey.toString('base64'),
        AUTH_URL: auth.url,
        INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
        INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
        GATEWAY_SECRET: TEST_GATEWAY_SECRET,
        TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
        ...env,
      },
    });
    const keyRing = VaultKeyRing.single(vaultKey);
    const operator = openProxyStore({ databaseUrl: started.postgres.url, keyRing });
    return {
      proxy: started.service,
      auth,
      broker: started.broker,
      bus: started.bus,
      postgres: started.postgres,
      operator,
      vaultKey,
      keyRing,
      startAnother: (more) => started.startReplica(more),
      [Symbol.asyncDispose]: async () => {
        await operator.close();
        await started.close();
        await auth[Symbol.asyncDispose]();
      },
    };
  } catch (error) {
    await auth[Symbol.asyncDispose]();
    throw error;
  }
}
