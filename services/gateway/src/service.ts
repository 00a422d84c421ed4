/**
 * The gateway as a unit the embedded stack and main.ts both start: the usage counters' database
 * client (with DATABASE_URL) and their bus subject, the budget of rejected tokens per address, listen, then serve the app built for the URL
 * actually bound (so PORT=0 works in tests); close() drains the listener for SHUTDOWN_DRAIN_MS and
 * finishes in-flight requests (kit's closeServer), then stops the
 * subject and the introspection client, writes the counts still in memory and disconnects the
 * database client, in that order.
 */

import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { InProcessEntry, ServiceDeps, Subscription } from '@pag/kit';
import {
  closeServer,
  createPrismaClient,
  IntrospectionClient,
  listen,
  ServiceDirectory,
  serveEndpoints,
  startPurgeJob,
} from '@pag/kit';
import { createApp } from './app.ts';
import type { GatewayConfig } from './config.ts';
import { gatewayDatabase } from './database.ts';
import { gatewayEndpoints } from './endpoints.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { auditStreamDefinition } from './pipeline/audit.ts';
import { kitIntrospector } from './pipeline/kit-introspector.ts';
import { AuthFailureStore } from './store/auth-failures.ts';
import { UsageCharger } from './store/usage-charger.ts';
import { UsageStore } from './store/usage-store.ts';

export interface GatewayDeps extends ServiceDeps<GatewayConfig> {
  /** The clock of the rejected-token budget (tests move it); default: the system clock. */
  now?: () => Date;
  /**
   * The proxy's in-process entry, when the proxy runs in this process (the embedded stack passes
   * it): /api/v1/services/* is handed to it instead of forwarded to PROXY_URL (docs/adr/0069).
   */
  proxy?: InProcessEntry;
}

export interface RunningGateway extends AsyncDisposable {
  readonly publicUrl: string;
  readonly port: number;
  readonly server: Server;
  close(): Promise<void>;
}

/** How long the requests of agents without limits are counted in memory before they are written. */
const USAGE_FLUSH_MS = 1_000;
/** How often old daily usage counts are deleted. */
const PURGE_INTERVAL_MS = 60 * 60_000;
/** How often a replica reads the addresses other replicas found past their budget of rejected tokens. */
const BLOCKED_REFRESH_MS = 1_000;

export async function startGateway(deps: GatewayDeps): Promise<RunningGateway> {
  const { config, bus, logger, metrics } = deps;
  const server = createServer({
    requestTimeout: config.requestTimeoutMs,
    headersTimeout: config.headersTimeoutMs,
    // How often node:http looks for clients past those timeouts (default 30 s): a slow client is
    // cut off within a second of its deadline rather than up to 30 s later.
    connectionsCheckingInterval: 1_000,
    maxHeaderSize: 16 * 1024,
  });
  server.keepAliveTimeout = 5_000;
  const prisma =
    config.databaseUrl === undefined
      ? undefined
      : createPrismaClient(PrismaClient, {
          databaseUrl: config.databaseUrl,
          schema: gatewayDatabase.schema,
          logger,
        });
  const usage =
    prisma === undefined ? undefined : new UsageStore(prisma, { flushMs: USAGE_FLUSH_MS, logger });
  // One charger for requests and trigger runs: they share the agent's limits and refusals.
  const charger = usage === undefined ? undefined : new UsageCharger(usage);
  const authFailures =
    prisma === undefined
      ? undefined
      : new AuthFailureStore(prisma, {
          policy: config.authFailures,
          refreshMs: BLOCKED_REFRESH_MS,
          now: deps.now ?? (() => new Date()),
          logger,
        });
  let usageQuery: Subscription[] = [];
  let introspection: IntrospectionClient | undefined;
  let directory: ServiceDirectory | undefined;
  let port: number;
  try {
    // Every answer waits for its audit event to be stored: no stream, no start.
    await bus.ensureStream(auditStreamDefinition);
    usageQuery =
      usage === undefined || charger === undefined
        ? []
        : await serveEndpoints(
            bus,
            { service: 'gateway', deps: { usage, charger }, logger, metrics },
            gatewayEndpoints,
          );
    introspection = await startIntrospection(deps);
    directory = await ServiceDirectory.start({ bus, logger });
    port = await listen(server, config.port, config.host);
  } catch (error) {
    await directory?.close();
    await Promise.all(usageQuery.map((subscription) => subscription.close()));
    await introspection?.close();
    await usage?.close();
    await authFailures?.close();
    await prisma?.$disconnect();
    throw error;
  }
  const purge =
    usage === undefined || authFailures === undefined
      ? undefined
      : startPurgeJob({
          intervalMs: PURGE_INTERVAL_MS,
          tasks: [
            { name: 'usage_counters', run: () => usage.purgeOldDays() },
            { name: 'auth_failures', run: () => authFailures.purgeEnded() },
          ],
          logger,
        });
  const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
  const introspector = introspection === undefined ? undefined : kitIntrospector(introspection);
  const app = createApp({
    config: { ...config, publicUrl },
    bus,
    logger,
    metrics,
    introspector,
    charger,
    authFailures,
    directory,
    proxy: deps.proxy,
  });
  server.on('request', app);
  logger.info(
    { port, publicUrl, authUrl: config.authUrl, countsUsage: usage !== undefined },
    'gateway listening',
  );

  const close = async () => {
    await closeServer(server, { drainMs: config.shutdownDrainMs });
    await Promise.all(usageQuery.map((subscription) => subscription.close()));
    await directory.close();
    await introspection?.close();
    await purge?.stop();
    await usage?.close();
    await authFailures?.close();
    await prisma?.$disconnect();
  };
  return { publicUrl, port, server, close, [Symbol.asyncDispose]: close };
}

/** The introspection client when the auth service and the gateway's credentials are configured. */
async function startIntrospection(deps: GatewayDeps): Promise<IntrospectionClient | undefined> {
  const { authUrl, introspection } = deps.config;
  if (authUrl === undefined || introspection === undefined) return undefined;
  return IntrospectionClient.create({
    authUrl,
    clientId: introspection.clientId,
    clientSecret: introspection.clientSecret,
    tokenTagKeys: introspection.tokenTagKeys,
    cacheMs: introspection.cacheMs,
    bus: deps.bus,
    logger: deps.logger,
  });
}
