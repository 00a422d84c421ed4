/**
 * How many handshakes may be created (pure logic; the store reads the history from PostgreSQL,
 * so every replica sees the same counts and a restart forgets nothing). A handshake goes to an
 * owner's queue: with one owner account, that owner's at once; with several, the pool of
 * unclaimed requests until an owner claims it (ADR 0011). The limits, on rolling windows, keep
 * one caller from blocking others (docs/adr/0027):
 * - per client address and queue: at most 30 creations per hour. What an address sent to one
 *   owner's queue does not count for another owner's; unclaimed ones count in the pool until an
 *   owner claims them, then in that owner's queue;
 * - per client address and agentId: at most 5 creations per hour, and at most 3 pending at once.
 *   A client that keeps asking under one agentId (behind an ingress or NAT, say) uses up its own
 *   places, not those of the other agents behind the same address; and someone using the same
 *   agentId from another address does not use up these places.
 * A pending handshake stops counting after 24 hours, so an owner who never answers cannot block
 * anyone for good. Over a limit: 429 RATE_LIMITED with Retry-After = when the limit frees a place;
 * for the pending limit that is as soon as the owner decides one of them, which the agent learns
 * by polling: Retry-After is then at most PENDING_RETRY_SECONDS (not the 24 hours after which a
 * pending one stops counting anyway; docs/adr/0058).
 */
import { AppError, HANDSHAKE_POLL_INTERVAL_SECONDS } from '@pag/contracts';

export interface CreationLimits {
  perClientPerQueuePerHour: number;
  perClientAgentPerHour: number;
  pendingPerClientAgent: number;
  /** How long a pending handshake counts toward pendingPerClientAgent. */
  pendingCountsForSeconds: number;
}

export const DEFAULT_CREATION_LIMITS: CreationLimits = {
  perClientPerQueuePerHour: 30,
  perClientAgentPerHour: 5,
  pendingPerClientAgent: 3,
  pendingCountsForSeconds: 24 * 3600,
};

export const HOUR_SECONDS = 3600;

/**
 * Retry-After of the pending limit: a place frees the moment the owner decides, so asking again
 * is worth it soon; sooner than a minute only repeats the refusal while a human reads the queue.
 */
export const PENDING_RETRY_SECONDS = 60;

/**
 * Creation times, newest first, each list cut at its limit (the store asks for no more): the
 * client's to this queue in the last hour, the client's with this agentId in the last hour, and
 * those still pending.
 */
export interface CreationHistory {
  fromClientToQueue: Date[];
  fromClientAgent: Date[];
  pendingFromClientAgent: Date[];
}

/** Seconds until `since` is `windowSeconds` old; at least 1. */
function secondsUntilOut(since: Date, windowSeconds: number, now: Date): number {
  return Math.max(1, Math.ceil((since.getTime() + windowSeconds * 1000 - now.getTime()) / 1000));
}

function limited(message: string, retryAfterSeconds: number, now: Date, hint?: string): AppError {
  const at = new Date(now.getTime() + retryAfterSeconds * 1000).toISOString();
  return new AppError('RATE_LIMITED', `${message} Retry in ${retryAfterSeconds} s (at ${at}).`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
    ...(hint === undefined ? {} : { hint }),
  });
}

/**
 * The refusal for the first limit the history reaches, or null when a handshake may be created.
 * Each list holds the newest entries, so its last one is the one whose ageing frees a place.
 */
export function creationRefusal(
  history: CreationHistory,
  agentRef: string,
  now: Date,
  limits: CreationLimits = DEFAULT_CREATION_LIMITS,
): AppError | null {
  const blocking = (dates: Date[], limit: number) => (dates.length >= limit ? dates[limit - 1] : undefined);
  const client = blocking(history.fromClientToQueue, limits.perClientPerQueuePerHour);
  if (client)
    return limited(
      `Too many handshakes from your address: at most ${limits.perClientPerQueuePerHour} per hour for one owner.`,
      secondsUntilOut(client, HOUR_SECONDS, now),
      now,
    );
  const pending = blocking(history.pendingFromClientAgent, limits.pendingPerClientAgent);
  if (pending)
    return limited(
      `agentId "${agentRef}" already has ${limits.pendingPerClientAgent} handshakes from your address waiting for the owner; ` +
        'poll their status: a new one is possible as soon as the owner decides one.',
      Math.min(PENDING_RETRY_SECONDS, secondsUntilOut(pending, limits.pendingCountsForSeconds, now)),
      now,
      `A place frees as soon as the owner approves or denies one of your pending handshakes: poll their status (every ${HANDSHAKE_POLL_INTERVAL_SECONDS} s) and ask again once one is decided, or wait for Retry-After.`,
    );
  const agent = blocking(history.fromClientAgent, limits.perClientAgentPerHour);
  if (agent)
    return limited(
      `Too many handshakes for agentId "${agentRef}" from your address: at most ${limits.perClientAgentPerHour} per hour.`,
      secondsUntilOut(agent, HOUR_SECONDS, now),
      now,
    );
  return null;
}
