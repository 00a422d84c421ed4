/**
 * The HTML pages (src/interactions: login, consent, sign-up; src/dashboard), mounted before the
 * discovery routes and oidc-provider.
 */
import type { Router } from '@koa/router';
import type { Bus, Logger } from '@pag/kit';
import type { AuthCore } from '../core.ts';
import { createDashboardRouter } from '../dashboard/dashboard-router.ts';
import { assignChosenPersona, personaChoices } from '../dashboard/persona-choice.ts';
import type { ConsentPersonas } from '../interactions/interaction-router.ts';
import { createInteractionRouter } from '../interactions/interaction-router.ts';
import { createOwnerRouter } from '../interactions/owner-router.ts';
import type { CookiePolicy } from '../interactions/page-cookie.ts';

export interface PageRouters {
  routers: Router[];
}

export function pageRouters(options: { core: AuthCore; bus: Bus; logger: Logger }): PageRouters {
  const { core, bus, logger } = options;
  const { provider, accounts, agents, publicUrl } = core;
  const cookies: CookiePolicy = { secure: publicUrl.startsWith('https:') };
  const deps = { core, bus, logger, cookies };
  const personas: ConsentPersonas = {
    list: (ctx, accountId) => personaChoices(deps, ctx, accountId),
    assign: (ctx, accountId, agentId, personaId) =>
      assignChosenPersona(deps, ctx, agentId, personaId, accountId),
  };
  return {
    routers: [
      createInteractionRouter({ provider, accounts, agents, personas, logger }),
      createOwnerRouter({ accounts, logger, config: { publicUrl } }),
      createDashboardRouter({ core, bus, logger, cookies }),
    ],
  };
}
