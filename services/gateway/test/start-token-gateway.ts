/**
 * A gateway that checks tokens, for tests of what happens after authentication: a real
 * PostgreSQL with the gateway's migrations (usage counts), the fake auth service answering
 * introspection for the tokens a test issues, and the gateway on the in-memory bus.
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
import type { TestGateway, TestGatewayOptions } from './start-test-gateway.ts';
import { startTestGateway } from './start-test-gateway.ts';

export const PUBLIC_URL = 'https://gw.example';

export interface TokenGateway extends AsyncDisposable {
  gateway: TestGateway;
  auth: FakeAuthServer;
  postgres: TestPostgres;
  /** Another gateway on the same database and auth service, e.g. with other settings. */
  startAnother(env?: Record<string, string>, options?: TestGatewayOptions): Promise<TestGateway>;
  /** Makes `token` active, with these scopes, for agent `agt_<clientId>` of account acc-1. */
  issue(token: string, scopes: string, claims?: Record<string, unknown>): void;
}

export async function startTokenGateway(
  env: Record<string, string> = {},
  options: TestGatewayOptions = {},
): Promise<TokenGateway> {
  const postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
  const auth = await FakeAuthServer.start();
  const others: TestGateway[] = [];
  const baseEnv = {
    PUBLIC_URL,
    AUTH_URL: auth.url,
    DATABASE_URL: postgres.url,
    INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
    TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
    INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
  };
  const gateway = await startTestGateway({ ...baseEnv, ...env }, options);
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return {
    gateway,
    auth,
    postgres,
    async startAnother(more = {}, moreOptions = {}) {
      const another = await startTestGateway({ ...baseEnv, ...more }, moreOptions);
      others.push(another);
      return another;
    },
    issue(token, scopes, claims = {}) {
      auth.tokens.set(token, {
        active: true,
        scope: scopes,
        client_id: 'claude-desktop',
        sub: 'acc-1',
        account_id: 'acc-1',
        aud: `${PUBLIC_URL}/api/v1`,
        exp,
        iat: exp - 3600,
        token_type: 'Bearer',
        token_kind: 'dashboard',
        agent_id: 'agt_1',
        agent_name: 'Test agent',
        ...claims,
      });
    },
    async [Symbol.asyncDispose]() {
      for (const other of others) await other[Symbol.asyncDispose]();
      await gateway[Symbol.asyncDispose]();
      await auth[Symbol.asyncDispose]();
      await postgres.stop();
    },
  };
}
