/**
 * The koa app in front of oidc-provider, in order: request metrics; JSON errors; the gateway's
 * proof (every path but introspection answers the gateway only; X-Forwarded-For is dropped from
 * anything else); PUBLIC_URL as the only origin;
 * the HTML pages (login, consent, sign-up, dashboard); the discovery documents we serve
 * ourselves; the introspection gate; then oidc-provider for everything else (protocol endpoints,
 * RFC 8414 metadata, its 404s). Behind the gateway: `proxy` is on, so X-Forwarded-For names the
 * client (login throttling) and X-Forwarded-Proto the scheme (Secure cookies); gateway-only.ts
 * makes sure only the gateway's X-Forwarded-For is left to name it.
 */
import type { Router } from '@koa/router';
import type { Logger, Metrics } from '@pag/kit';
import { koaErrorHandler } from '@pag/kit';
import Koa from 'koa';
import type Provider from 'oidc-provider';
import type { IntrospectionClient } from '../config.ts';
import { createDiscoveryRouter } from '../discovery/discovery-router.ts';
import { introspectionGate } from '../provider/introspection.ts';
import { OAUTH_ROUTES } from '../provider/routes.ts';
import { gatewayOnly } from './gateway-only.ts';
import { observe } from './observe.ts';
import { pinPublicOrigin } from './pin-public-origin.ts';

export interface AuthAppOptions {
  provider: Provider;
  publicUrl: string;
  cookieKeys: string[];
  introspectionClients: IntrospectionClient[];
  /** GATEWAY_SECRET; undefined only without a gateway in front (gateway-only.ts). */
  gatewaySecret: string | undefined;
  /** Until when tokens without our prefix are looked up (told to resource servers); null: never. */
  legacyTokens: { readonly until: Date | null };
  pageRouters: Router[];
  logger: Logger;
  metrics: Metrics;
}

export function createAuthApp(options: AuthAppOptions): Koa {
  const { provider, publicUrl, logger } = options;
  const app = new Koa({ proxy: true, keys: options.cookieKeys });
  app.silent = true;
  app.on('error', (error: unknown) => logger.warn({ err: error }, 'response failed'));

  app.use(observe(options.metrics));
  app.use(koaErrorHandler(logger));
  app.use(gatewayOnly(options.gatewaySecret, OAUTH_ROUTES.introspection, logger));
  app.use(pinPublicOrigin(publicUrl));
  for (const router of options.pageRouters) app.use(router.routes()).use(router.allowedMethods());
  app.use(createDiscoveryRouter(publicUrl).routes());
  app.use(introspectionGate(OAUTH_ROUTES.introspection, options.introspectionClients, options.legacyTokens));
  const oidc = provider.callback();
  app.use((ctx) => {
    // oidc-provider answers on the raw request/response, as its own koa app.
    ctx.respond = false;
    return oidc(ctx.req, ctx.res);
  });
  return app;
}
