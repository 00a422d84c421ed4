/**
 * Embedded mode: every service (audit, auth, brain, trigger, proxy, gateway) in one process, an
 * embedded PostgreSQL under DATA_DIR (unless DATABASE_URL is set) and the in-memory bus (unless
 * NATS_URL is set). The auth and proxy services listen on internal loopback ports and the gateway
 * forwards to them; their shared secrets come from DATA_DIR/secrets.json. The services start from
 * their definitions in the order of embedded-services.ts, each with its wiring as typed config
 * overrides. Resources close in the reverse order of their start: HTTP first, then the bus, the
 * database last.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AUDIT_LOGIN_ROLE, ensureAuditLogin } from '@pag/audit';
import { authService } from '@pag/auth';
import { AuditStream } from '@pag/contracts';
import { gatewayService } from '@pag/gateway';
import type {
  Env,
  EnvShape,
  Logger,
  RunningService,
  ServiceDefinition,
  ServiceProcessConfig,
} from '@pag/kit';
import {
  announcePresence,
  createBus,
  createLogger,
  freePort,
  Shutdown,
  startEmbeddedPostgres,
  startOps,
} from '@pag/kit';
import { proxyService } from '@pag/proxy';
import { loadStackConfig } from './config.ts';
import { migrateAll } from './databases.ts';
import { EMBEDDED_SERVICES, StackWiring } from './embedded-services.ts';
import { embeddedAuditRolePassword, loadStackSecrets } from './secrets.ts';

export interface RunningStack extends AsyncDisposable {
  readonly publicUrl: string;
  readonly databaseUrl: string;
  readonly logger: Logger;
  /** A service of the stack as it runs (typed by its definition), e.g. for tests that look inside. */
  started<R extends RunningService>(definition: ServiceDefinition<EnvShape, ServiceProcessConfig, R>): R;
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
    const secrets = await loadStackSecrets(config.dataDir);
    const auditDatabaseUrl =
      config.auditDatabaseUrl ??
      (await ensureAuditLogin(databaseUrl, {
        role: AUDIT_LOGIN_ROLE,
        password: embeddedAuditRolePassword(secrets),
      }));
    const bus = await createBus({
      natsUrl: config.natsUrl,
      natsCredentials: config.natsCredentials,
      name: 'stack',
      logger,
      // The in-memory stream is gone with the process: an audit event counts as stored (and the
      // answer it holds is sent) once the audit service committed its row (docs/adr/0042).
      confirmedBy: { [AuditStream.name]: AuditStream.consumer },
    });
    shutdown.add('bus', () => bus.close());
    ops.health.addReadinessCheck('bus', () => {
      if (!bus.isReady()) throw new Error('bus disconnected');
    });

    // The issuer must be known before the auth service starts, so PORT=0 is resolved here.
    const port = config.port === 0 ? await freePort() : config.port;
    const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
    const wiring = new StackWiring({
      env,
      secrets,
      port,
      publicUrl,
      databaseUrl,
      auditDatabaseUrl,
      opsPort: ops.port,
    });
    for (const service of EMBEDDED_SERVICES) {
      const running = await wiring.start(service, { bus, metrics: ops.metrics, logLevel: config.logLevel });
      shutdown.add(service.definition.name, () => running.close());
      // Runs before the service's close: the directory drops it before it stops answering.
      shutdown.add(
        `${service.definition.name} presence`,
        await announcePresence(service.definition.name, { bus }),
      );
    }
    // Only now: before, the ops listener would call the stack ready while its services still start.
    ops.health.markStarted();
    shutdown.add('readiness', () => ops.health.markShuttingDown());
    const auth = wiring.started(authService);
    const proxy = wiring.started(proxyService);
    const gateway = wiring.started(gatewayService);

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
    return {
      publicUrl: gateway.publicUrl,
      databaseUrl,
      logger,
      started: (definition) => wiring.started(definition),
      close,
      [Symbol.asyncDispose]: close,
    };
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
