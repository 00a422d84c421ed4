/**
 * The live directory of running services (docs/adr/0062), kept from the instances' announcements
 * (presence-announcer.ts), never from configuration: a service named in config but not running is
 * down. A service is up while at least one of its instances was heard within PRESENCE_MISSED_BEATS
 * of its own intervals and has not said goodbye.
 *
 * Expiry is worked out when the directory is read (no timer), against the clock it was given, so
 * a reader always sees the state of that moment. `version` changes exactly when the set of
 * running services changes, so what is derived from it (the documents' availability) is cached
 * per version.
 */
import type { NatsUser, PresenceAnnouncement } from '@pag/contracts';
import {
  NATS_USERS,
  PRESENCE_MISSED_BEATS,
  PresenceAnnouncement as PresenceAnnouncementSchema,
  PresenceSubjects,
} from '@pag/contracts';
import type { Bus, Subscription } from '../bus/types.ts';
import type { Logger } from '../log/logger.ts';

export interface ServiceDirectoryOptions {
  bus: Bus;
  /** The clock, epoch ms (tests). */
  now?: () => number;
  logger?: Logger;
}

/** The running services at one moment. */
export interface DirectorySnapshot {
  /** Changes whenever `running` does. */
  readonly version: number;
  readonly running: ReadonlySet<NatsUser>;
}

interface Instance {
  service: NatsUser;
  /** Epoch ms after which it counts as gone. */
  until: number;
}

export class ServiceDirectory implements AsyncDisposable {
  readonly #now: () => number;
  readonly #logger: Logger | undefined;
  readonly #instances = new Map<string, Instance>();
  #snapshot: DirectorySnapshot = { version: 0, running: new Set() };
  #subscription: Subscription | undefined;

  /**
   * Listens for announcements, then asks every instance to announce itself, so the directory is
   * complete as soon as their answers arrived (not one interval later).
   */
  static async start(options: ServiceDirectoryOptions): Promise<ServiceDirectory> {
    const directory = new ServiceDirectory(options);
    directory.#subscription = await options.bus.subscribe(PresenceSubjects.announcedAll, (msg) =>
      directory.#hear(msg.data),
    );
    await options.bus.publish(PresenceSubjects.requested, {});
    return directory;
  }

  private constructor(options: ServiceDirectoryOptions) {
    this.#now = options.now ?? Date.now;
    this.#logger = options.logger;
  }

  /** The running services now (expired instances dropped first). */
  snapshot(): DirectorySnapshot {
    const now = this.#now();
    let expired = false;
    for (const [id, instance] of this.#instances) {
      if (instance.until <= now) {
        this.#instances.delete(id);
        expired = true;
      }
    }
    if (expired) this.#refresh();
    return this.#snapshot;
  }

  isRunning(service: string): boolean {
    return (this.snapshot().running as ReadonlySet<string>).has(service);
  }

  async close(): Promise<void> {
    await this.#subscription?.close();
    this.#subscription = undefined;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #hear(data: unknown): void {
    const parsed = PresenceAnnouncementSchema.safeParse(data);
    if (!parsed.success) {
      this.#logger?.warn({ issues: parsed.error.issues }, 'presence announcement ignored');
      return;
    }
    const announcement: PresenceAnnouncement = parsed.data;
    const { instanceId, service, state, intervalMs } = announcement;
    if (state === 'down') this.#instances.delete(instanceId);
    else
      this.#instances.set(instanceId, { service, until: this.#now() + intervalMs * PRESENCE_MISSED_BEATS });
    this.snapshot();
    this.#refresh();
  }

  /** A new snapshot (and version) when the set of running services changed. */
  #refresh(): void {
    const running = new Set<NatsUser>();
    for (const instance of this.#instances.values()) running.add(instance.service);
    const before = this.#snapshot.running;
    if (running.size === before.size && [...running].every((service) => before.has(service))) return;
    // In NATS_USERS order, so equal sets read alike in logs.
    const ordered = new Set(NATS_USERS.filter((service) => running.has(service)));
    this.#snapshot = { version: this.#snapshot.version + 1, running: ordered };
    this.#logger?.info({ running: [...ordered] }, 'running services changed');
  }
}
