/**
 * Embedded mode: every service (auth, brain, proxy, gateway) in one process, an embedded
 * PostgreSQL under DATA_DIR (unless DATABASE_URL is set) and the in-memory bus (unless NATS_URL is
 * set). The auth and proxy services listen on internal loopback ports and the gateway forwards to
 * them; their shared secrets come from DATA_DIR/secrets.json. Resources close in the reverse order of their start: HTTP first, then
 * the bus, the database last.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startAuth } from '@pag/auth';
import { loadBrainConfig, startBrain } from '@pag/brain';
import { loadGatewayConfig, startGateway } from '@pag/gateway';
import type { Env, Logger } from '@pag/kit';
import { createBus, createLogger, freePort, Shutdown, startEmbeddedPostgres, startOps } from '@pag/kit';
import { loadProxyConfig, startProxy } from '@pag/proxy';
import { embeddedAuthConfig } from './auth-config.ts';
import { loadStackConfig } from './config.ts';
import { migrateAll } from './databases.ts';
import { embeddedGatewaySecret, embeddedTokenTagKey, embeddedVaultKey, loadStackSecrets } from './secrets.ts';

export interface RunningStack extends AsyncDisposable {
  readonly publicUrl: string;
  readonly databaseUrl: string;
  readonly logger: Logger;
  close(): Promise<void>;
}

export async function startStack(env: Env): Promise<RunningStack> {
  const config = loadStackConfig(env);
  const logger = createLogger({ service: 'stack', level: config.logLevel });
  const shutdown = new Shutdown(logger);
  try {
    const ops = await startOps({ port: config.opsPort, host: config.host });
    shutdown.add('ops', () => ops.close());
    await mkdir(config.dataDir, { recursive: true });
    let databaseUrl = config.databaseUrl;
    if (databaseUrl === undefined) {
      const postgres = await startEmbeddedPostgres({ dataDir: join(config.dataDir, 'postgres'), logger });
      shutdown.add('postgres', () => postgres.stop());
      databaseUrl = postgres.url;
    }
    await migrateAll(databaseUrl, logger);
    const bus = await createBus({
      natsUrl: config.natsUrl,
      natsCredentials: config.natsCredentials,
      name: 'stack',
      logger,
    });
    shutdown.add('bus', () => bus.close());
    ops.health.addReadinessCheck('bus', () => {
      if (!bus.isReady()) throw new Error('bus disconnected');
    });

    // The issuer must be known before the auth service starts, so PORT=0 is resolved here.
    const port = config.port === 0 ? await freePort() : config.port;
    const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
    const secrets = await loadStackSecrets(config.dataDir);
    // The gateway and the proxy verify with the auth service's keys (TOKEN_TAG_KEYS overrides all three).
    const tokenTagKeys = env.TOKEN_TAG_KEYS ?? embeddedTokenTagKey(secrets);
    const auth = await startAuth({
      config: embeddedAuthConfig(env, secrets, { publicUrl, databaseUrl, opsPort: ops.port }),
      bus,
      logger: createLogger({ service: 'auth', level: config.logLevel }),
      metrics: ops.metrics,
    });
    shutdown.add('auth', () => auth.close());

    // Before the gateway, so its first requests find the brain's subjects answered.
    const brain = await startBrain({
      config: loadBrainConfig({ ...env, DATABASE_URL: databaseUrl }),
      bus,
      logger: createLogger({ service: 'brain', level: config.logLevel }),
      metrics: ops.metrics,
    });
    shutdown.add('brain', () => brain.close());

    // On its own loopback port; the gateway forwards /api/v1/services/* to it. In embedded mode it
    // introspects as the gateway's resource-server client (the one in INTROSPECTION_CLIENTS).
    const proxy = await startProxy({
      config: loadProxyConfig({
        VAULT_ENCRYPTION_KEY: embeddedVaultKey(secrets),
        GATEWAY_SECRET: embeddedGatewaySecret(secrets),
        ...env,
        PORT: '0',
        HOST: '127.0.0.1',
        OPS_PORT: String(ops.port),
        PUBLIC_URL: publicUrl,
        DATABASE_URL: databaseUrl,
        AUTH_URL: auth.url,
        INTROSPECTION_CLIENT_ID: secrets.introspectionClientId,
        INTROSPECTION_CLIENT_SECRET: secrets.introspectionClientSecret,
        TOKEN_TAG_KEYS: tokenTagKeys,
      }),
      bus,
      logger: createLogger({ service: 'proxy', level: config.logLevel }),
      metrics: ops.metrics,
    });
    shutdown.add('proxy', () => proxy.close());

    const gatewayConfig = loadGatewayConfig({
      GATEWAY_SECRET: embeddedGatewaySecret(secrets),
      ...env,
      PORT: String(port),
      OPS_PORT: String(ops.port),
      PUBLIC_URL: publicUrl,
      DATABASE_URL: databaseUrl,
      AUTH_URL: auth.url,
      PROXY_URL: proxy.url,
      INTROSPECTION_CLIENT_ID: secrets.introspectionClientId,
      INTROSPECTION_CLIENT_SECRET: secrets.introspectionClientSecret,
      TOKEN_TAG_KEYS: tokenTagKeys,
    });
    const gateway = await startGateway({
      config: gatewayConfig,
      bus,
      logger: createLogger({ service: 'gateway', level: config.logLevel }),
      metrics: ops.metrics,
    });
    shutdown.add('gateway', () => gateway.close());
    shutdown.add('readiness', () => ops.health.markShuttingDown());

    await writeStackFile(config.dataDir, {
      pid: process.pid,
      publicUrl: gateway.publicUrl,
      // The auth service's internal URL: what resource servers (and the benchmarks) introspect at.
      authUrl: auth.url,
      // The proxy's internal URL: only the gateway's signed requests are served there.
      proxyUrl: proxy.url,
      opsPort: ops.port,
      databaseUrl,
    });
    const close = () => shutdown.run('close');
    return { publicUrl: gateway.publicUrl, databaseUrl, logger, close, [Symbol.asyncDispose]: close };
  } catch (error) {
    await shutdown.run('start-up failed');
    throw error;
  }
}

/**
 * stack.json tells operator commands (and tests) which database the running stack uses, so they
 * work against the same data. It lives in DATA_DIR, readable by its owner only.
 */
async function writeStackFile(dataDir: string, content: Record<string, unknown>): Promise<void> {
  await writeFile(join(dataDir, 'stack.json'), `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
}
