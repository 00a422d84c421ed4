/**
 * Every started service instance announces itself for live discovery (docs/adr/0062): its own
 * process (run-service.ts), the embedded stack and the testkit's startService each call this once
 * the service's start() resolved (it serves from then on) and run the returned closer before the
 * service's own close, so the directory drops the instance before it stops answering.
 */
import type { NatsUser } from '@pag/contracts';
import { NATS_USERS } from '@pag/contracts';
import type { Bus } from '../bus/types.ts';
import { PresenceAnnouncer } from '../discovery/presence-announcer.ts';
import type { Logger } from '../log/logger.ts';

export interface AnnouncePresenceOptions {
  /** The announcement interval; PRESENCE_INTERVAL_MS by default. */
  intervalMs?: number;
}

/** Starts announcing `service`; resolves to its goodbye. A name that is no service of ours announces nothing. */
export async function announcePresence(
  service: string,
  deps: { bus: Bus; logger?: Logger },
  options: AnnouncePresenceOptions = {},
): Promise<() => Promise<void>> {
  if (!(NATS_USERS as readonly string[]).includes(service)) return async () => {};
  const announcer = await PresenceAnnouncer.start({
    bus: deps.bus,
    service: service as NatsUser,
    logger: deps.logger,
    intervalMs: options.intervalMs,
  });
  return () => announcer.close();
}
