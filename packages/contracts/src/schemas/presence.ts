/**
 * Live service discovery (docs/adr/0062): every running instance of a service announces itself on
 * the bus at a steady interval and says goodbye when it stops; whoever keeps a directory (the
 * gateway) counts a service as running while one of its instances was heard within
 * PRESENCE_MISSED_BEATS intervals. A presence request makes every instance announce at once, so a
 * directory that has just started knows the running services without waiting a whole interval.
 */
import { z } from 'zod';
import { NATS_USERS } from '../bus-users.ts';

/** How often an instance announces itself. */
export const PRESENCE_INTERVAL_MS = 5_000;
/** Intervals without a word after which an instance counts as gone. */
export const PRESENCE_MISSED_BEATS = 3;

export const PresenceAnnouncement = z
  .object({
    service: z.enum(NATS_USERS),
    /** One id per running instance (a process, or a replica in the embedded stack). */
    instanceId: z.string().min(1).max(128),
    /** `up` while it serves, `down` as it stops (its goodbye). */
    state: z.enum(['up', 'down']),
    /** How often this instance announces itself, ms: the directory waits PRESENCE_MISSED_BEATS of them. */
    intervalMs: z.int().positive(),
  })
  .describe('A service instance saying it runs, or that it stops.');
export type PresenceAnnouncement = z.infer<typeof PresenceAnnouncement>;

/** Asks every running instance to announce itself now (its body is empty). */
export const PresenceRequest = z.object({}).describe('Every instance, announce yourself now.');
export type PresenceRequest = z.infer<typeof PresenceRequest>;
