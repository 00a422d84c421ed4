/**
 * The HTML pages (src/interactions: login, consent, sign-up, owner pages), mounted before the
 * discovery routes and oidc-provider.
 */
import type { Router } from '@koa/router';
import type { Logger } from '@pag/kit';
import type { AuthCore } from '../core.ts';
import { createInteractionRouter, createOwnerRouter } from '../interactions/mod.ts';

export interface PageRouters {
  routers: Router[];
}

export function pageRouters(options: { core: AuthCore; logger: Logger }): PageRouters {
  const { core, logger } = options;
  const { provider, accounts, agents, publicUrl } = core;
  return {
    routers: [
      createInteractionRouter({ provider, accounts, agents, logger }),
      createOwnerRouter({ accounts, logger, config: { publicUrl } }),
    ],
  };
}
