/**
 * The proxy's express apps: one visible pipeline of small steps, each in its own module, behind
 * two entries (docs/adr/0069): its HTTP listener, where the gateway forwards over the network,
 * and the embedded stack's in-process handover (in-process.ts), where the gateway's verified
 * caller and matched route replace the gateway proof, the route lookup and authentication.
 * Everything from the metrics on is the same step instances in both; the in-process entry calls
 * them in order without an express app (kit's runSteps, docs/adr/0074).
 *
 *   request id → report in the answer → metrics → gateway proof (the gateway's signature, else
 *   403) → route lookup (the contracts' proxy routes only) → authentication (introspection,
 *   audience, account) → scope (read or write as the connector classifies the call) → no method
 *   change (override parameters, a body on GET) → connector and credential → streamed call to
 *   the connected service → error handler; what became of each call is told to the gateway for
 *   its audit row (report-call.ts)
 *
 * The steps every resource server shares (request id, metrics, gateway proof, route lookup,
 * authentication, scope, error handler) are the kit's (docs/adr/0032-one-resource-server-pipeline.md);
 * the proxy's own are in this folder.
 */

import type { RouteDefinition } from '@pag/contracts';
import type { InProcessEntry, Logger, Metrics } from '@pag/kit';
import {
  authenticate,
  checkScope,
  errorHandler,
  gatewayOnly,
  observe,
  requestId,
  routeLookup,
  runSteps,
} from '@pag/kit';
import type { Express, Response } from 'express';
import express from 'express';
import type { CredentialCache } from '../calls/credential-cache.ts';
import type { LastUsedBatch } from '../calls/last-used.ts';
import type { TokenRefresher } from '../calls/token-refresh.ts';
import type { ConnectorRegistry } from '../connectors/registry.ts';
import type { VaultStore } from '../store/vault-store.ts';
import { findConnection } from './find-connection.ts';
import { forwardUpstream } from './forward-upstream.ts';
import { inProcessEntry } from './in-process.ts';
import type { TokenIntrospector } from './introspector.ts';
import { proxyIntrospector } from './introspector.ts';
import { refuseMethodChange } from './refuse-method-change.ts';
import { reportInAnswer, reportRefusal } from './report-call.ts';
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
}

/** The proxy's two entries to one pipeline after authentication (docs/adr/0069). */
export interface ProxyApps {
  /** The HTTP listener's app: the gateway's signed requests, each token introspected here. */
  http: Express;
  /** The embedded gateway's: the request with the caller it verified, in memory (in-process.ts). */
  inProcess: InProcessEntry;
}

export function createProxyApps(deps: ProxyAppDeps): ProxyApps {
  // One instance of each step after authentication, shared by both entries: one connector
  // proxy per connector, one set of calls in flight.
  const call = [
    checkScope(deps.publicUrl),
    refuseMethodChange,
    findConnection(deps),
    forwardUpstream({
      refresher: deps.refresher,
      lastUsed: deps.lastUsed,
      timeoutMs: deps.upstreamTimeoutMs,
      bodyLimitBytes: deps.bodyLimitBytes,
      maxResponseBytes: deps.maxResponseBytes,
      logger: deps.logger,
    }),
  ];
  const failures = errorHandler({ logger: deps.logger, publicUrl: deps.publicUrl, onError: reportRefusal });

  const http = baseApp();
  http.use(requestId);
  http.use(reportInAnswer);
  http.use(observe(deps.metrics, 'proxy', metricRoute));
  http.use(gatewayOnly('proxy', deps.gatewaySecret, deps.logger));
  http.use(routeLookup({ serves: proxyRoute }));
  http.use(authenticate({ publicUrl: deps.publicUrl, introspector: proxyIntrospector(deps.introspector) }));
  http.use(...call);
  http.use(failures);

  // The same steps without a second express app (kit's runSteps, docs/adr/0074); the caller and
  // the route come with the handover (in-process.ts).
  const handedOver = runSteps([observe(deps.metrics, 'proxy', metricRoute), ...call], failures);
  return {
    http,
    inProcess: inProcessEntry({ run: handedOver, serves: proxyRoute, publicUrl: deps.publicUrl }),
  };
}

function baseApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Client addresses come from the socket only.
  app.set('trust proxy', false);
  app.set('query parser', 'simple');
  return app;
}

/** The proxy serves the contracts' connector routes (`/api/v1/services/{service}/{path}`) only. */
export function proxyRoute(route: RouteDefinition): boolean {
  return route.service === 'proxy' && route.subject === null;
}

/** The route label of the request's duration: route id and connector, never the raw path. */
function metricRoute(res: Response): string {
  const { route, connector } = state(res);
  return route === undefined ? 'unmatched' : `${route.id}:${connector?.name ?? 'unknown'}`;
}
