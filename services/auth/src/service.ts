/**
 * The auth service as a unit that main.ts and the embedded stack both start: the database client,
 * the signing keys (made on first start), oidc-provider on our adapter, the koa app, the purge
 * job, on its internal HTTP port; close() finishes in-flight requests, stops the purge job and
 * disconnects the database, in that order.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { EventSubjects, TokenRevokedEvent } from '@pag/contracts';
import type { ServiceDeps } from '@pag/kit';
import { closeServer, closeSubscriptions, listen, serveEndpoints, startPurgeJob } from '@pag/kit';
import type Provider from 'oidc-provider';
import { authHandlerDeps } from './api/auth-handler-deps.ts';
import { createAuthApp } from './app/create-app.ts';
import { pageRouters } from './app/page-routers.ts';
import type { AuthConfig } from './config.ts';
import type { AuthCore } from './core.ts';
import { createAuthCore } from './core.ts';
import { authEndpoints } from './endpoints.ts';
import type { AuditRelay } from './events/audit-relay.ts';
import { startAuditRelay } from './events/audit-relay.ts';
import { busEvents } from './events/bus-events.ts';
import { relayEvents } from './store/event-relay.ts';

/** The config, bus, logger and metrics registry it starts on (kit's ServiceDeps). */
export type AuthDeps = ServiceDeps<AuthConfig>;

export interface RunningAuth extends AsyncDisposable {
  /** Internal URL of the HTTP listener (what the gateway forwards to). */
  readonly url: string;
  readonly port: number;
  /** The issuer: PUBLIC_URL, or `url` when none is configured. */
  readonly publicUrl: string;
  readonly provider: Provider;
  /** Accounts, agents and oidc-provider's models, as the HTTP side uses them. */
  readonly core: AuthCore;
  readonly server: Server;
  /** Publishes the decisions' audit events; wake() relays now and resolves when done (tests). */
  readonly auditRelay: AuditRelay;
  close(): Promise<void>;
}

const PURGE_INTERVAL_MS = 5 * 60_000;

function internalUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

export async function startAuth(deps: AuthDeps): Promise<RunningAuth> {
  const { config, bus, logger, metrics } = deps;
  const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000, maxHeaderSize: 16 * 1024 });
  server.keepAliveTimeout = 5_000;
  // Until the app is built, a request (port already known to a caller, or found by a DNS name
  // the other replicas share) gets 503, not silence, on a connection that then closes: the
  // caller's next attempt connects anew, to a replica that may be ready (docs/adr/0057).
  let handle: (req: IncomingMessage, res: ServerResponse) => unknown = (_req, res) => {
    res.writeHead(503, { connection: 'close', 'retry-after': '1' });
    res.end();
  };
  server.on('request', (req, res) => handle(req, res));
  const port = await listen(server, config.port, config.host);
  const url = internalUrl(config.host, port);
  const publicUrl = config.publicUrl ?? url;
  const events = busEvents(bus, logger);
  let opened: AuthCore | undefined;
  try {
    const core = await createAuthCore({ config, publicUrl, events, logger });
    opened = core;
    const { provider } = core;
    // Revocations by other replicas and by operator commands (through the relay below) reach what
    // this replica keeps for introspection here; its own revocations forget before they publish.
    const revocations = await bus.subscribe<unknown>(EventSubjects.tokenRevoked, (msg) => {
      const event = TokenRevokedEvent.safeParse(msg.data);
      if (event.success) core.forgetRevoked(event.data);
      else logger.warn({ subject: EventSubjects.tokenRevoked }, 'ignored a malformed revocation event');
    });
    const pages = pageRouters({ core, bus, logger });
    const app = createAuthApp({
      provider,
      publicUrl,
      cookieKeys: config.cookieKeys,
      introspectionClients: config.introspectionClients,
      gatewaySecret: config.gatewaySecret,
      legacyTokens: core.legacyTokens,
      pageRouters: pages.routers,
      logger,
      metrics,
    });
    handle = app.callback();
    const subscriptions = [
      revocations,
      ...(await serveEndpoints(
        bus,
        { service: 'auth', deps: authHandlerDeps(core), logger, metrics },
        authEndpoints,
      )),
    ];
    // Events of decisions taken beside the service (operator commands) reach the bus here.
    const relay = await relayEvents({ databaseUrl: config.databaseUrl, events, logger });
    // Decisions' audit events (this replica's, other replicas', operator commands') reach AUDIT here.
    const auditRelay = await startAuditRelay({
      outbox: core.auditOutbox,
      bus,
      databaseUrl: config.databaseUrl,
      logger,
    });
    const purge = startPurgeJob({ intervalMs: PURGE_INTERVAL_MS, tasks: core.purgeTasks, logger });
    logger.info({ url, publicUrl, signingKeys: core.signingKeyIds }, 'auth listening');

    const close = async () => {
      await closeServer(server, { drainMs: config.shutdownDrainMs });
      await closeSubscriptions(subscriptions);
      await relay.close();
      await auditRelay.close();
      await purge.stop();
      await core.close();
    };
    return {
      url,
      port,
      publicUrl,
      provider,
      core,
      server,
      auditRelay,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await closeServer(server);
    await opened?.close();
    throw error;
  }
}
