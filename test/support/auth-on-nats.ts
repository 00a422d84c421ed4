/**
 * For root tests of several services on one bus: a nats-server with JetStream, a PostgreSQL with
 * the auth and gateway migrations, the auth service on its own NATS connection (PUBLIC_URL as
 * given, one resource-server client: RESOURCE_SERVER) and one owner account; gateway replicas to
 * put beside it. close() stops all of it, by the pids the helpers got.
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import type { Logger } from '../../packages/kit/src/mod.ts';
import { applyMigrations, createMetrics, NatsBus } from '../../packages/kit/src/mod.ts';
import type { NatsServer, TestPostgres } from '../../packages/kit/src/testing/mod.ts';
import {
  startNatsServer,
  startTestPostgres,
  TEST_GATEWAY_SECRET,
} from '../../packages/kit/src/testing/mod.ts';
import type { RunningAuth } from '../../services/auth/src/mod.ts';
import { authDatabase, byOperator, startAuth } from '../../services/auth/src/mod.ts';
import {
  RESOURCE_SERVER,
  TOKEN_TAG_KEY,
  testConfig,
} from '../../services/auth/test/support/start-test-auth.ts';
import type { RunningGateway } from '../../services/gateway/src/mod.ts';
import { gatewayDatabase, loadGatewayConfig, startGateway } from '../../services/gateway/src/mod.ts';

export { RESOURCE_SERVER } from '../../services/auth/test/support/start-test-auth.ts';

export interface AuthOnNats {
  nats: NatsServer;
  postgres: TestPostgres;
  authBus: NatsBus;
  auth: RunningAuth;
  /** The owner account made at start. */
  accountId: string;
  close(): Promise<void>;
}

export async function startAuthOnNats(options: { publicUrl: string; logger: Logger }): Promise<AuthOnNats> {
  const { logger } = options;
  const nats = await startNatsServer();
  let postgres: TestPostgres | undefined;
  let authBus: NatsBus | undefined;
  let auth: RunningAuth | undefined;
  const close = async () => {
    await auth?.close();
    await authBus?.close();
    await postgres?.stop();
    await nats.stop();
  };
  try {
    postgres = await startTestPostgres();
    await applyMigrations({ databaseUrl: postgres.url, ...authDatabase });
    await applyMigrations({ databaseUrl: postgres.url, ...gatewayDatabase });
    authBus = await NatsBus.connect({ url: nats.url, name: 'auth', logger });
    auth = await startAuth({
      // The gateway replicas below sign what they forward with the same secret.
      config: testConfig(postgres.url, { publicUrl: options.publicUrl, gatewaySecret: TEST_GATEWAY_SECRET }),
      bus: authBus,
      logger,
      metrics: createMetrics({ defaultMetrics: false }),
    });
    const owner = await auth.core.accounts.create(
      {
        email: 'owner@example.test',
        password: 'correct horse battery staple',
      },
      byOperator(),
    );
    return { nats, postgres, authBus, auth, accountId: owner.id, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** What every gateway replica of this setup is given: the public origin, the database, the auth service. */
export function gatewayEnv(env: AuthOnNats, publicUrl: string): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PUBLIC_URL: publicUrl,
    DATABASE_URL: env.postgres.url,
    AUTH_URL: env.auth.url,
    GATEWAY_SECRET: TEST_GATEWAY_SECRET,
    INTROSPECTION_CLIENT_ID: RESOURCE_SERVER.clientId,
    INTROSPECTION_CLIENT_SECRET: RESOURCE_SERVER.clientSecret,
    TOKEN_TAG_KEYS: TOKEN_TAG_KEY,
  };
}

export interface GatewayReplica {
  url: string;
  bus: NatsBus;
  gateway: RunningGateway;
  close(): Promise<void>;
}

/** A gateway in this process on its own NATS connection, on a free port. */
export async function startGatewayReplica(
  env: AuthOnNats,
  options: { name: string; publicUrl: string; logger: Logger; extraEnv?: Record<string, string> },
): Promise<GatewayReplica> {
  const { logger } = options;
  const bus = await NatsBus.connect({ url: env.nats.url, name: options.name, logger });
  try {
    const gateway = await startGateway({
      config: loadGatewayConfig({
        ...gatewayEnv(env, options.publicUrl),
        PORT: '0',
        LOG_LEVEL: 'silent',
        ...options.extraEnv,
      }),
      bus,
      logger,
      metrics: createMetrics({ defaultMetrics: false }),
    });
    const close = async () => {
      await gateway.close();
      await bus.close();
    };
    return { url: `http://127.0.0.1:${gateway.port}`, bus, gateway, close };
  } catch (error) {
    await bus.close();
    throw error;
  }
}
