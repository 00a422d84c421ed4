/**
 * For root tests of several services on one bus: a nats-server with JetStream, a PostgreSQL with
 * the auth and gateway migrations, the auth service on its own NATS connection (PUBLIC_URL as
 * given, one resource-server client: RESOURCE_SERVER) and one owner account. close() stops all of
 * it, by the pids the helpers got.
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import type { Logger } from '../../packages/kit/src/mod.ts';
import { applyMigrations, createMetrics, NatsBus } from '../../packages/kit/src/mod.ts';
import type { NatsServer, TestPostgres } from '../../packages/kit/src/testing/mod.ts';
import { startNatsServer, startTestPostgres } from '../../packages/kit/src/testing/mod.ts';
import type { RunningAuth } from '../../services/auth/src/mod.ts';
import { authDatabase, startAuth } from '../../services/auth/src/mod.ts';
import { testConfig } from '../../services/auth/test/support/start-test-auth.ts';
import { gatewayDatabase } from '../../services/gateway/src/mod.ts';

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
      config: testConfig(postgres.url, { publicUrl: options.publicUrl }),
      bus: authBus,
      logger,
      metrics: createMetrics({ defaultMetrics: false }),
    });
    const owner = await auth.core.accounts.create({
      email: 'owner@example.test',
      password: 'correct horse battery staple',
    });
    return { nats, postgres, authBus, auth, accountId: owner.id, close };
  } catch (error) {
    await close();
    throw error;
  }
}
