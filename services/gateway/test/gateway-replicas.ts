/**
 * Two gateways in this process on one real PostgreSQL (with the gateway's migrations) and one
 * fake auth service: two replicas, for the tests of limits and usage shared across replicas
 * (test/limits-two-gateways.test.ts runs two processes).
 */
import { applyMigrations } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import {
  FakeAuthServer,
  startTestPostgres,
  TEST_INTROSPECTION_CLIENT,
  TEST_TOKEN_TAG_KEY,
} from '@pag/kit/testing';
import { gatewayDatabase } from '../src/database.ts';
import type { TestGateway } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

/**
 * How long a test waits for a replica's answer on the bus. A usage report first writes the counts
 * kept in memory and settles every lease (a few statements, each a commit): on a CI machine busy
 * with other suites that took more than 2 s once.
 */
export const BUS_TIMEOUT_MS = 10_000;

export interface GatewayReplicas extends AsyncDisposable {
  postgres: TestPostgres;
  auth: FakeAuthServer;
  gateway: TestGateway;
  replica: TestGateway;
  /** What both were started with: for a test that starts another replica. */
  env: Record<string, string>;
}

export async function startGatewayReplicas(publicUrl: string): Promise<GatewayReplicas> {
  const postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
  const auth = await FakeAuthServer.start();
  const env = {
    PUBLIC_URL: publicUrl,
    AUTH_URL: auth.url,
    DATABASE_URL: postgres.url,
    INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
    TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
    INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
  };
  const gateway = await startTestGateway(env);
  const replica = await startTestGateway(env);
  return {
    postgres,
    auth,
    gateway,
    replica,
    env,
    async [Symbol.asyncDispose]() {
      await replica[Symbol.asyncDispose]();
      await gateway[Symbol.asyncDispose]();
      await auth[Symbol.asyncDispose]();
      await postgres.stop();
    },
  };
}
