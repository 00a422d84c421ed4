/**
 * The proxy's express app: one visible pipeline of small steps, each in its own module.
 *
 *   request id → metrics → gateway proof (the gateway's signature, else 403) → route lookup (the
 *   contracts' proxy routes only) → authentication (introspection, audience, account) → scope
 *   (read or write as the connector classifies the call) → no method change (override
 *   parameters, a body on GET) → connector and credential → streamed call to the connected
 *   service (one `proxy.call` audit event each, audit-call.ts) → error handler
 *
 * The steps every resource server shares (request id, metrics, gateway proof, route lookup,
 * authentication, scope, error handler) are the kit's (docs/adr/0032-one-resource-server-pipeline.md);
 * the proxy's own are in this folder.
 */
import type { RouteDefinition } from '@pag/contracts';
import type { Logger, Metrics } from '@pag/kit';
import {
  authenticate,
  checkScope,
  errorHandler,
  gatewayOnly,
  observe,
  requestId,
  routeLookup,
} from '@pag/kit';
import type { Express, Response } from 'express';
import express from 'express';
import type { CallAudit } from '../calls/audit-call.ts';
import type { CredentialCache } from '../calls/credential-cache.ts';
import type { LastUsedBatch } from '../calls/last-used.ts';
import type { TokenRefresher } from '../calls/token-refresh.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { VaultStore } from '../store/vault-store.ts';
import { findConnection } from './find-connection.ts';
import { forwardUpstream } from './forward-upstream.ts';
import type { TokenIntrospector } from './introspector.ts';
import { proxyIntrospector } from './introspector.ts';
import { refuseMethodChange } from './refuse-method-change.ts';
import { state } from './state.ts';

export interface ProxyAppDeps {
  publicUrl: string;
  /** GATEWAY_SECRET: only requests the gateway signed are served. */
  gatewaySecret: string;
  introspector: TokenIntrospector;
  store: VaultStore;
  /** Refreshes OAuth access tokens before they expire, and after a provider's 401 (calls/token-refresh.ts). */
  refresher: TokenRefresher;
  /** Recent decrypted credentials in memory, dropped when their rows change (calls/credential-cache.ts). */
  credentials: CredentialCache;
  /** last_used_at, written once a second per token (calls/last-used.ts). */
  lastUsed: LastUsedBatch;
  /** The connectors each account sees (connectors/registry.ts). */
  connectors: ConnectorRegistry;
  upstreamTimeoutMs: number;
  bodyLimitBytes: number;
  /** PROXY_MAX_RESPONSE_BYTES: the largest answer passed back. */
  maxResponseBytes: number;
  logger: Logger;
  metrics: Metrics;
  /** Where the `proxy.call` audit event of each forwarded call goes. */
  audit: CallAudit;
}

export function createProxyApp(deps: ProxyAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Client addresses come from the socket only.
  app.set('trust proxy', false);
  app.set('query parser', 'simple');

  app.use(requestId);
  app.use(observe(deps.metrics, 'proxy', metricRoute));
  app.use(gatewayOnly('proxy', deps.gatewaySecret, deps.logger));
  app.use(routeLookup({ serves: proxyRoute }));
  app.use(authenticate({ publicUrl: deps.publicUrl, introspector: proxyIntrospector(deps.introspector) }));
  app.use(checkScope(deps.publicUrl));
  app.use(refuseMethodChange);
  app.use(findConnection(deps));
  app.use(
    forwardUpstream({
      refresher: deps.refresher,
      lastUsed: deps.lastUsed,
      timeoutMs: deps.upstreamTimeoutMs,
      bodyLimitBytes: deps.bodyLimitBytes,
      maxResponseBytes: deps.maxResponseBytes,
      logger: deps.logger,
      audit: deps.audit,
    }),
  );
  app.use(errorHandler({ logger: deps.logger, publicUrl: deps.publicUrl }));
  return app;
}

/** The proxy serves the contracts' connector routes (`/api/v1/services/{service}/{path}`) only. */
function proxyRoute(route: RouteDefinition): boolean {
  return route.service === 'proxy' && route.subject === null;
}

/** The route label of the request's duration: route id and connector, never the raw path. */
function metricRoute(res: Response): string {
  const { route, connector } = state(res);
  return route === undefined ? 'unmatched' : `${route.id}:${connector?.name ?? 'unknown'}`;
}
