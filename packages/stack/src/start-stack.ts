/**
 * Embedded mode: every service in one process, an embedded PostgreSQL under DATA_DIR (unless
 * DATABASE_URL is set) and the in-memory bus (unless NATS_URL is set). The auth service listens
 * on an internal loopback port and the gateway forwards to it; their shared secrets come from
 * DATA_DIR/secrets.json. Resources close in the reverse order of their start: HTTP first, then
 * the bus, the database last.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startAuth } from '@pag/auth';
import { loadGatewayConfig, startGateway } from '@pag/gateway';
import type { Env, Logger } from '@pag/kit';
import { createBus, createLogger, freePort, Shutdown, startEmbeddedPostgres, startOps } from '@pag/kit';
import { embeddedAuthConfig } from './auth-config.ts';
import { loadStackConfig } from './config.ts';
import { migrateAll } from './databases.ts';
import { loadStackSecrets } from './secrets.ts';

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
    const ops = await startOps({ port: config.opsPort });
    shutdown.add('ops', () => ops.close());
    await mkdir(config.dataDir, { recursive: true });
    let databaseUrl = config.databaseUrl;
    if (databaseUrl === undefined) {
      const postgres = await startEmbeddedPostgres({ dataDir: join(config.dataDir, 'postgres'), logger });
      shutdown.add('postgres', () => postgres.stop());
      databaseUrl = postgres.url;
    }
    await migrateAll(databaseUrl, logger);
    const bus = await createBus({ natsUrl: config.natsUrl, name: 'stack', logger });
    shutdown.add('bus', () => bus.close());
    ops.health.addReadinessCheck('bus', () => {
      if (!bus.isReady()) throw new Error('bus disconnected');
    });

    // The issuer must be known before the auth service starts, so PORT=0 is resolved here.
    const port = config.port === 0 ? await freePort() : config.port;
    const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
    const secrets = await loadStackSecrets(config.dataDir);
    const auth = await startAuth({
      config: embeddedAuthConfig(env, secrets, { publicUrl, databaseUrl, opsPort: ops.port }),
      bus,
      logger: createLogger({ service: 'auth', level: config.logLevel }),
      metrics: ops.metrics,
    });
    shutdown.add('auth', () => auth.close());

    const gatewayConfig = loadGatewayConfig({
      ...env,
      PORT: String(port),
      OPS_PORT: String(ops.port),
      PUBLIC_URL: publicUrl,
      DATABASE_URL: databaseUrl,
      AUTH_URL: auth.url,
      INTROSPECTION_CLIENT_ID: secrets.introspectionClientId,
      INTROSPECTION_CLIENT_SECRET: secrets.introspectionClientSecret,
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
