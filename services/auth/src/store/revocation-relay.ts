/**
 * Revocations made outside the running service (operator commands on the same database) reach
 * its bus through PostgreSQL NOTIFY: the command notifies REVOCATION_CHANNEL, every auth replica
 * listens and publishes the TokenRevokedEvent, so every gateway cache evicts at once even when the
 * stack's bus is in memory. Several replicas publishing the same eviction is harmless.
 */
import type { Logger, NotificationListener } from '@pag/kit';
import { listenForNotifications } from '@pag/kit';
import { z } from 'zod';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { RevokedAccess } from './oidc-adapter.ts';

export const REVOCATION_CHANNEL = 'pag_auth_revocations';

const Revoked = z.array(
  z.object({ accountId: z.string(), clientId: z.string(), tokenSha256: z.string().nullable() }),
);

/** NOTIFY payloads stay under PostgreSQL's 8000-byte limit: at most this many entries each. */
const PER_NOTIFICATION = 40;

export function notifyRevocations(prisma: PrismaClient) {
  return async (revoked: RevokedAccess[]): Promise<void> => {
    for (let start = 0; start < revoked.length; start += PER_NOTIFICATION) {
      const payload = JSON.stringify(revoked.slice(start, start + PER_NOTIFICATION));
      await prisma.$executeRaw`SELECT pg_notify(${REVOCATION_CHANNEL}, ${payload})`;
    }
  };
}

export function relayRevocations(options: {
  databaseUrl: string;
  publish: (revoked: RevokedAccess[]) => Promise<void>;
  logger: Logger;
}): Promise<NotificationListener> {
  const { logger } = options;
  return listenForNotifications({
    databaseUrl: options.databaseUrl,
    channel: REVOCATION_CHANNEL,
    logger,
    handler: async (payload) => {
      let parsed: ReturnType<typeof Revoked.safeParse>;
      try {
        parsed = Revoked.safeParse(JSON.parse(payload));
      } catch {
        parsed = Revoked.safeParse(undefined);
      }
      if (!parsed.success) {
        logger.warn({ channel: REVOCATION_CHANNEL }, 'ignored a malformed revocation notification');
        return;
      }
      await options.publish(parsed.data);
    },
  });
}
