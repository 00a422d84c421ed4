/**
 * The owner's dashboard: /dashboard/tokens, /dashboard/handshakes, /dashboard/devices,
 * /dashboard/audit and the brain's pages (/dashboard/personas, /knowledge, /identity, /memory,
 * /brain: asked of the brain service over the bus, brain-source.ts) and /dashboard/triggers (the
 * trigger service, triggers-routes.ts) and /dashboard/services (the proxy: connecting services,
 * services-routes.ts), each from its own file, all behind requireOwner (signed-in owner, account on
 * ctx.state.owner) and the page guard (security headers, error pages). Every POST must come from our own origin
 * (same-origin.ts) and carry the CSRF token bound to the owner's session (csrf.ts).
 */
import { Router } from '@koa/router';
import { pageGuard, seeOther } from '../interactions/page-security.ts';
import { sameOriginPosts } from '../interactions/same-origin.ts';
import { registerAuditRoutes } from './audit-routes.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { registerDeviceRoutes } from './devices-routes.ts';
import { registerHandshakeRoutes } from './handshakes-routes.ts';
import { registerIdentityRoutes } from './identity-routes.ts';
import { registerKnowledgeRoutes } from './knowledge-routes.ts';
import { registerMemoryRoutes } from './memory-routes.ts';
import { requireOwner } from './owner-context.ts';
import { registerPersonaRoutes } from './personas-routes.ts';
import { registerProviderRoutes } from './provider-routes.ts';
import { registerServiceRoutes } from './services-routes.ts';
import { registerTokenRoutes } from './tokens-routes.ts';
import { registerTriggerRoutes } from './triggers-routes.ts';

export function createDashboardRouter(deps: DashboardDeps): Router {
  const router = new Router({ prefix: '/dashboard' });
  router.use(pageGuard(deps.logger));
  router.use(sameOriginPosts(deps.core.publicUrl));
  router.use(requireOwner(deps.core.accounts, deps.cookies));
  router.get('/', (ctx) => seeOther(ctx, '/dashboard/tokens'));
  registerTokenRoutes(router, deps);
  registerHandshakeRoutes(router, deps);
  registerDeviceRoutes(router, deps);
  registerAuditRoutes(router, deps);
  registerPersonaRoutes(router, deps);
  registerKnowledgeRoutes(router, deps);
  registerIdentityRoutes(router, deps);
  registerMemoryRoutes(router, deps);
  registerProviderRoutes(router, deps);
  registerTriggerRoutes(router, deps);
  registerServiceRoutes(router, deps);
  return router;
}
