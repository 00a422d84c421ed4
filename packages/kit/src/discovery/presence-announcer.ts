/**
 * Announces one running service instance on the bus (docs/adr/0062): `up` at start, again every
 * interval and whenever a directory asks (PresenceSubjects.requested), `down` when it closes, so
 * a directory lists the service while it runs and drops it as soon as it stops, not one expiry
 * later. Started for every service by lifecycle/start-announced.ts.
 *
 * Enforces: announcing never fails the service. A bus that cannot carry the word (disconnected,
 * closing) loses that one beat, which is logged; the next beat or a directory's request repairs it.
 */
import { randomUUID } from 'node:crypto';
import type { NatsUser, PresenceAnnouncement } from '@pag/contracts';
import { PRESENCE_INTERVAL_MS, PresenceSubjects, presenceSubject } from '@pag/contracts';
import type { Bus, Subscription } from '../bus/types.ts';
import type { Logger } from '../log/logger.ts';

export interface PresenceAnnouncerOptions {
  bus: Bus;
  service: NatsUser;
  /** How often to announce; PRESENCE_INTERVAL_MS by default (tests shorten it). */
  intervalMs?: number;
  logger?: Logger;
}

export class PresenceAnnouncer implements AsyncDisposable {
  readonly instanceId = randomUUID();
  readonly #bus: Bus;
  readonly #service: NatsUser;
  readonly #intervalMs: number;
  readonly #logger: Logger | undefined;
  #timer: NodeJS.Timeout | undefined;
  #subscription: Subscription | undefined;
  #closing: Promise<void> | undefined;

  /** Listens for directories' requests, then says `up`; resolves once both are on the bus. */
  static async start(options: PresenceAnnouncerOptions): Promise<PresenceAnnouncer> {
    const announcer = new PresenceAnnouncer(options);
    announcer.#subscription = await options.bus.subscribe(PresenceSubjects.requested, () =>
      announcer.#announce('up'),
    );
    await announcer.#announce('up');
    announcer.#timer = setInterval(() => void announcer.#announce('up'), announcer.#intervalMs);
    // A beat never keeps a process alive on its own: close() is the way out, not the timer.
    announcer.#timer.unref();
    return announcer;
  }

  private constructor(options: PresenceAnnouncerOptions) {
    this.#bus = options.bus;
    this.#service = options.service;
    this.#intervalMs = options.intervalMs ?? PRESENCE_INTERVAL_MS;
    this.#logger = options.logger;
  }

  /** Stops the beat and says goodbye; idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearInterval(this.#timer);
      await this.#subscription?.close();
      await this.#announce('down');
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #announce(state: PresenceAnnouncement['state']): Promise<void> {
    if (state === 'up' && this.#closing !== undefined) return;
    const announcement: PresenceAnnouncement = {
      service: this.#service,
      instanceId: this.instanceId,
      state,
      intervalMs: this.#intervalMs,
    };
    try {
      await this.#bus.publish(presenceSubject(this.#service), announcement);
    } catch (error) {
      this.#logger?.warn({ err: error, state }, 'presence announcement not sent');
    }
  }
}
