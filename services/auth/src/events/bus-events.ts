/**
 * AuthEvents on the bus: each event published on its EventSubjects subject. A decision stands
 * whether or not its event went out, so a failed publish is logged, never thrown: introspection
 * caches forget a revoked token when their entry expires (seconds), and a listener missing a
 * decision finds it in the database.
 */
import type { DeviceEvent } from '@pag/contracts';
import { EventSubjects, TokenRevokedEvent } from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import type { AuthEvents, RevokedAccess } from './auth-events.ts';

export function busEvents(bus: Bus, logger: Logger): AuthEvents {
  const publish = async (subject: string, event: unknown, about: Record<string, unknown>) => {
    try {
      await bus.publish(subject, event);
    } catch (error) {
      logger.error({ err: error, subject, ...about }, 'event not published');
    }
  };
  const device = (subject: string) => (event: DeviceEvent) =>
    publish(subject, event, { deviceId: event.deviceId });
  return {
    async tokensRevoked(revoked: RevokedAccess[]) {
      const revokedAt = new Date().toISOString();
      for (const item of revoked)
        await publish(EventSubjects.tokenRevoked, TokenRevokedEvent.parse({ ...item, revokedAt }), {
          clientId: item.clientId,
        });
    },
    handshakeDecided: (event) =>
      publish(EventSubjects.handshakeDecided, event, { handshakeId: event.handshakeId }),
    deviceApproved: device(EventSubjects.deviceApproved),
    deviceRevoked: device(EventSubjects.deviceRevoked),
  };
}
