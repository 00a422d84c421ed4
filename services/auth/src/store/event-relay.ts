/**
 * Events of decisions made outside the running service (operator commands on the same database)
 * reach its bus through PostgreSQL NOTIFY: the command's AuthEvents (notifyEvents) notifies
 * EVENT_CHANNEL, every auth replica listens (relayEvents) and publishes the event on its own bus,
 * so the stack's listeners hear a `pag` decision as they hear the dashboard's, even when the bus
 * is in memory. With several replicas on one NATS, each relays: an event may arrive once per
 * replica (harmless for evictions; listeners key decisions by their id). NOTIFY is not durable:
 * with no replica running, the event is lost, as the bus would lose it with no subscriber.
 */
import { DeviceEvent, HandshakeDecidedEvent } from '@pag/contracts';
import type { Logger, NotificationListener } from '@pag/kit';
import { listenForNotifications } from '@pag/kit';
import { z } from 'zod';
import type { AuthEvents, RevokedAccess } from '../events/auth-events.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export const EVENT_CHANNEL = 'pag_auth_events';

const Notification = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('tokensRevoked'),
    revoked: z.array(
      z.object({ accountId: z.string(), clientId: z.string(), tokenSha256: z.string().nullable() }),
    ),
  }),
  z.object({ kind: z.literal('handshakeDecided'), event: HandshakeDecidedEvent }),
  z.object({ kind: z.literal('deviceApproved'), event: DeviceEvent }),
  z.object({ kind: z.literal('deviceRevoked'), event: DeviceEvent }),
]);
type Notification = z.infer<typeof Notification>;

/** NOTIFY payloads stay under PostgreSQL's 8000-byte limit: at most this many revocations each. */
const REVOCATIONS_PER_NOTIFICATION = 40;

/** AuthEvents for a process beside the service: each event is a NOTIFY the replicas relay. */
export function notifyEvents(prisma: PrismaClient): AuthEvents {
  const notify = async (notification: Notification) => {
    await prisma.$executeRaw`SELECT pg_notify(${EVENT_CHANNEL}, ${JSON.stringify(notification)})`;
  };
  return {
    async tokensRevoked(revoked: RevokedAccess[]) {
      for (let start = 0; start < revoked.length; start += REVOCATIONS_PER_NOTIFICATION)
        await notify({
          kind: 'tokensRevoked',
          revoked: revoked.slice(start, start + REVOCATIONS_PER_NOTIFICATION),
        });
    },
    handshakeDecided: (event: HandshakeDecidedEvent) => notify({ kind: 'handshakeDecided', event }),
    deviceApproved: (event: DeviceEvent) => notify({ kind: 'deviceApproved', event }),
    deviceRevoked: (event: DeviceEvent) => notify({ kind: 'deviceRevoked', event }),
  };
}

/** Hands every notification on EVENT_CHANNEL to `events` (the service's bus publisher). */
export function relayEvents(options: {
  databaseUrl: string;
  events: AuthEvents;
  logger: Logger;
}): Promise<NotificationListener> {
  const { events, logger } = options;
  return listenForNotifications({
    databaseUrl: options.databaseUrl,
    channel: EVENT_CHANNEL,
    logger,
    handler: async (payload) => {
      let parsed: ReturnType<typeof Notification.safeParse>;
      try {
        parsed = Notification.safeParse(JSON.parse(payload));
      } catch {
        parsed = Notification.safeParse(undefined);
      }
      if (!parsed.success) {
        logger.warn({ channel: EVENT_CHANNEL }, 'ignored a malformed event notification');
        return;
      }
      const notification = parsed.data;
      switch (notification.kind) {
        case 'tokensRevoked':
          return events.tokensRevoked(notification.revoked);
        case 'handshakeDecided':
          return events.handshakeDecided(notification.event);
        case 'deviceApproved':
          return events.deviceApproved(notification.event);
        case 'deviceRevoked':
          return events.deviceRevoked(notification.event);
      }
    },
  });
}
