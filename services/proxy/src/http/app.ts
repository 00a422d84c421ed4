/**
 * The proxy's express app: one visible pipeline of small steps, each in its own module.
 *
 *   request id → metrics → gateway proof (the gateway's signature, else 403) → route lookup (the contracts' proxy routes only) → authentication
 *   (introspection, audience, account) → scope → connector and credential → streamed call to the
 *   connected service → error handler
 */
import type { Logger, Metrics } from '@pag/kit';
import type { Express } from 'express';
import express from 'express';
import type { ConnectorDefinition } from '../connectors/catalogue.ts';
import { errorHandler } from '../errors.ts';
import type { VaultStore } from '../store/vault-store.ts';
import type { TokenIntrospector } from './authenticate.ts';
import { authenticate } from './authenticate.ts';
import { checkScope } from './check-scope.ts';
import { findConnection } from './find-connection.ts';
import { forwardUpstream } from './forward-upstream.ts';
import { gatewayOnly } from './gateway-only.ts';
import { observe } from './observe.ts';
import { requestId } from './request-id.ts';
import { routeLookup } from './route-lookup.ts';

export interface ProxyAppDeps {
  publicUrl: string;
  /** GATEWAY_SECRET: only requests the gateway signed are served. */
  gatewaySecret: string;
  introspector: TokenIntrospector;
  store: VaultStore;
  connectors: ReadonlyMap<string, ConnectorDefinition>;
  upstreamTimeoutMs: number;
  bodyLimitBytes: number;
  logger: Logger;
  metrics: Metrics;
}

export function createProxyApp(deps: ProxyAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Client addresses come from the socket only.
  app.set('trust proxy', false);
  app.set('query parser', 'simple');

  app.use(requestId);
  app.use(observe(deps.metrics));
  app.use(gatewayOnly(deps.gatewaySecret, deps.logger));
  app.use(routeLookup);
  app.use(authenticate(deps.publicUrl, deps.introspector));
  app.use(checkScope(deps.publicUrl));
  app.use(findConnection(deps));
  app.use(
    forwardUpstream({
      connectors: deps.connectors,
      store: deps.store,
      timeoutMs: deps.upstreamTimeoutMs,
      bodyLimitBytes: deps.bodyLimitBytes,
      logger: deps.logger,
    }),
  );
  app.use(errorHandler(deps.logger));
  return app;
}
