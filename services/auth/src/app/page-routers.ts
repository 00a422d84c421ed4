/**
 * The seam to src/interactions (the login, consent, sign-up and owner pages, another part of the
 * service): the two routers it builds, mounted before the discovery routes and oidc-provider.
 */
import type { Router } from '@koa/router';
import type { Logger } from '@pag/kit';
import type Provider from 'oidc-provider';
import { AccountStore } from '../accounts/mod.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { createInteractionRouter, createOwnerRouter } from '../interactions/mod.ts';

export interface PageRouters {
  accounts: AccountStore;
  routers: Router[];
}

export function pageRouters(options: {
  provider: Provider;
  prisma: PrismaClient;
  publicUrl: string;
  logger: Logger;
}): PageRouters {
  const { provider, prisma, publicUrl, logger } = options;
  const accounts = new AccountStore(prisma);
  return {
    accounts,
    routers: [
      createInteractionRouter({ provider, accounts, logger }),
      createOwnerRouter({ accounts, logger, config: { publicUrl } }),
    ],
  };
}
