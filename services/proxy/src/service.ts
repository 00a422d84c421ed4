/**
 * The proxy service as a unit that main.ts and the embedded stack both start with their own bus,
 * logger and metrics: the database client, the vault, the introspection client (evicted by
 * revocation events on the bus), the bus answers (ProxySubjects) and the HTTP listener the
 * gateway forwards /api/v1/services/* to (PORT=0 picks a free port; `url` says which), and the
 * same calls' in-process entry for a gateway in this process (`inProcess`, docs/adr/0069).
 * close() finishes in-flight calls (HTTP, then the bus's) and their audit events' publishes, then
 * stops the introspection client and the credential cache's listener, writes the last_used_at times
 * still batched and waits for them, and disconnects the database, in that order.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { InProcessEntry, NotificationListener, ServiceDeps, Subscription } from '@pag/kit';
import {
  closeServer,
  closeSubscriptions,
  createPrismaClient,
  IntrospectionClient,
  listen,
  serveEndpoints,
} from '@pag/kit';
import { callAudit } from './calls/audit-call.ts';
import { CredentialCache } from './calls/credential-cache.ts';
import { LastUsedBatch } from './calls/last-used.ts';
import { TokenRefresher } from './calls/token-refresh.ts';
import type { ProxyConfig } from './config.ts';
import { resolveConnectors } from './connectors/catalogue.ts';
import { ConnectorRegistry } from './connectors/registry.ts';
import { proxyDatabase } from './database.ts';
import { proxyEndpoints } from './endpoints.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import type { ProxyApps } from './http/app.ts';
import { createProxyApps } from './http/app.ts';
import { ConnectStore } from './store/connect-store.ts';
import { followCredentialChanges } from './store/credential-changes.ts';
import { ServiceListCache } from './store/service-list-cache.ts';
import { VaultStore } from './store/vault-store.ts';

/** The config, bus, logger and metrics registry it starts on (kit's ServiceDeps). */
export type ProxyDeps = ServiceDeps<ProxyConfig>;

export interface RunningProxy extends AsyncDisposable {
  /** Internal URL of the HTTP listener (the gateway's PROXY_URL). */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /**
   * The credentials this replica holds in memory (calls/credential-cache.ts): tests that change
   * rows behind its back wait on it until the change has been heard.
   */
  readonly credentials: CredentialCache;
  /**
   * The lists of connected services this replica holds in memory (store/service-list-cache.ts):
   * tests wait on it until each replica has kept an account's list.
   */
  readonly serviceLists: ServiceListCache;
  /**
   * The same calls without the HTTP hop, for a gateway in this process (the embedded stack): the
   * request with the caller the gateway verified (http/in-process.ts, docs/adr/0069).
   */
  readonly inProcess: InProcessEntry;
  close(): Promise<void>;
}

function internalUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export async function startProxy(deps: ProxyDeps): Promise<RunningProxy> {
  const { config, bus, logger, metrics } = deps;
  const base = resolveConnectors(config.connectors);
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: config.databaseUrl,
    schema: proxyDatabase.schema,
    logger,
  });
  const store = new VaultStore({ prisma, keyRing: config.keyRing, connectors: base, logger });
  const connectors = new ConnectorRegistry(base, store.owners, {
    allowLoopback: config.connectors.allowLoopback,
  });
  const connect = new ConnectStore({ prisma, keyRing: config.keyRing });
  const refresher = new TokenRefresher({
    store: connect,
    bus,
    logger,
    marginMs: config.refreshMarginMs,
    timeoutMs: config.upstreamTimeoutMs,
  });
  const server = createServer({
    // Uploads stream through; the gateway bounds the whole request first (REQUEST_TIMEOUT_MS).
    requestTimeout: 60_000,
    headersTimeout: 10_000,
    maxHeaderSize: 32 * 1024,
  });
  server.keepAliveTimeout = 5_000;
  const audit = callAudit(bus, logger);
  const credentials = new CredentialCache();
  const lastUsed = new LastUsedBatch(store);
  let changes: NotificationListener | undefined;
  const serviceLists = new ServiceListCache({ sync: () => changes?.sync() ?? Promise.resolve(false) });
  let introspection: IntrospectionClient | undefined;
  let subscriptions: Subscription[] = [];
  let port: number;
  let apps: ProxyApps;
  try {
    changes = await followCredentialChanges({
      databaseUrl: config.databaseUrl,
      caches: [credentials, connectors, serviceLists],
      logger,
    });
    introspection = await IntrospectionClient.create({
      authUrl: config.authUrl,
      clientId: config.introspection.clientId,
      clientSecret: config.introspection.clientSecret,
      tokenTagKeys: config.introspection.tokenTagKeys,
      cacheMs: config.introspection.cacheMs,
      bus,
      logger,
    });
    subscriptions = await serveEndpoints(
      bus,
      {
        service: 'proxy',
        deps: {
          store,
          serviceLists,
          connectors,
          allowLoopback: config.connectors.allowLoopback,
          connect,
          refresher,
          connectStateTtlMs: config.connectStateTtlMs,
          calls: {
            audit,
            timeoutMs: config.upstreamTimeoutMs,
            bodyLimitBytes: config.bodyLimitBytes,
            maxResponseBytes: config.maxResponseBytes,
          },
        },
        logger,
        metrics,
      },
      proxyEndpoints,
    );
    apps = createProxyApps({
      publicUrl: config.publicUrl,
      gatewaySecret: config.gatewaySecret,
      introspector: introspection,
      store,
      refresher,
      credentials,
      lastUsed,
      connectors,
      upstreamTimeoutMs: config.upstreamTimeoutMs,
      bodyLimitBytes: config.bodyLimitBytes,
      maxResponseBytes: config.maxResponseBytes,
      logger,
      metrics,
    });
    server.on('request', apps.http);
    port = await listen(server, config.port, config.host);
  } catch (error) {
    await closeSubscriptions(subscriptions);
    await introspection?.close();
    await changes?.close();
    await prisma.$disconnect();
    throw error;
  }
  const url = internalUrl(config.host, port);
  logger.info({ url, connectors: [...base.keys()] }, 'proxy listening');

  const close = async () => {
    await closeServer(server, { drainMs: config.shutdownDrainMs });
    // The brain's calls under way finish before their audit events are waited for.
    await closeSubscriptions(subscriptions);
    await audit.close();
    await refresher.close();
    await introspection?.close();
    await changes?.close();
    lastUsed.flush();
    await store.close();
    await prisma.$disconnect();
  };
  return {
    url,
    port,
    server,
    credentials,
    serviceLists,
    inProcess: apps.inProcess,
    close,
    [Symbol.asyncDispose]: close,
  };
}
