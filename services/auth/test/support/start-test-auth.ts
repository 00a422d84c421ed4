/**
 * For the integration tests: a real PostgreSQL with the auth migrations, the in-memory bus and
 * the auth service on a free loopback port, its own URL as PUBLIC_URL (no gateway), one resource
 * server allowed to introspect. close() stops all of it, by the pids the helpers got.
 */
import { randomBytes } from 'node:crypto';
import type { Bus, Logger } from '@pag/kit';
import { applyMigrations, createBus, createLogger, createMetrics, createPrismaClient } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import type { AuthConfig } from '../../src/config.ts';
import { authDatabase } from '../../src/database.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import type { RunningAuth } from '../../src/service.ts';
import { startAuth } from '../../src/service.ts';

export const RESOURCE_SERVER = {
  clientId: 'gateway',
  clientSecret: 'resource-server-secret-0123456789abcdef',
};

/** The tests' TOKEN_TAG_KEYS (one key), so they can mint tokens the service accepts or forge some. */
export const TOKEN_TAG_KEY = randomBytes(32).toString('base64url');

export interface TestAuth extends AsyncDisposable {
  readonly url: string;
  readonly apiResource: string;
  readonly auth: RunningAuth;
  readonly postgres: TestPostgres;
  /** A client on the same database, for looking at what rests there. */
  readonly db: PrismaClient;
  readonly bus: Bus;
  readonly config: AuthConfig;
  /** Stops the service only (the database stays), e.g. to start it again on the same data. */
  restart(overrides?: Partial<AuthConfig>): Promise<void>;
  close(): Promise<void>;
}

export function testConfig(databaseUrl: string, overrides: Partial<AuthConfig> = {}): AuthConfig {
  return {
    port: 0,
    opsPort: 0,
    host: '127.0.0.1',
    publicUrl: undefined,
    databaseUrl,
    natsUrl: undefined,
    logLevel: 'silent',
    cookieKeys: [randomBytes(32).toString('base64url')],
    keyEncryptionKey: randomBytes(32),
    tokenHashKey: randomBytes(32).toString('base64url'),
    tokenTagKeys: [TOKEN_TAG_KEY],
    legacyTokensUntil: undefined,
    introspectionClients: [RESOURCE_SERVER],
    accessTokenTtlSeconds: 3600,
    refreshTokenTtlSeconds: 30 * 24 * 3600,
    tokenReadCacheMs: 1_000,
    cimdAllowLoopback: false,
    // No gateway in front: requests come straight from the tests (app/gateway-only.ts).
    gatewaySecret: undefined,
    ...overrides,
  };
}

export async function startTestAuth(overrides: Partial<AuthConfig> = {}): Promise<TestAuth> {
  const postgres = await startTestPostgres();
  const logger: Logger = createLogger({ service: 'auth-test', level: 'silent' });
  let bus: Bus | undefined;
  let db: PrismaClient | undefined;
  try {
    await applyMigrations({ databaseUrl: postgres.url, ...authDatabase });
    db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: authDatabase.schema });
    bus = await createBus({ name: 'auth-test', logger });
    let config = testConfig(postgres.url, overrides);
    const metrics = createMetrics({ defaultMetrics: false });
    let auth = await startAuth({ config, bus, logger, metrics });
    const started = { db, bus };
    const self: TestAuth = {
      get url() {
        return auth.publicUrl;
      },
      get apiResource() {
        return `${auth.publicUrl}/api/v1`;
      },
      get auth() {
        return auth;
      },
      get config() {
        return config;
      },
      postgres,
      db: started.db,
      bus: started.bus,
      async restart(next: Partial<AuthConfig> = {}) {
        await auth.close();
        // Same port and issuer, so clients and tokens of the first run still address it.
        config = { ...config, port: auth.port, publicUrl: auth.publicUrl, ...next };
        auth = await startAuth({ config, bus: started.bus, logger, metrics });
      },
      async close() {
        await auth.close();
        await started.bus.close();
        await started.db.$disconnect();
        await postgres.stop();
      },
      [Symbol.asyncDispose]: () => self.close(),
    };
    return self;
  } catch (error) {
    await bus?.close();
    await db?.$disconnect();
    await postgres.stop();
    throw error;
  }
}
