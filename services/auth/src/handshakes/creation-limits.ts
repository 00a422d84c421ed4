/**
 * How many handshakes may be created, so nobody can flood an owner's queue (pure logic; the store
 * reads the history from PostgreSQL, so every replica sees the same counts and a restart forgets
 * nothing). Three limits, all on rolling windows:
 * - per client address (as the gateway saw it): at most 10 creations per hour;
 * - per agentId: at most 5 creations per hour,
 * - and at most 3 pending at once. A pending handshake stops counting after 24 hours, so an owner
 *   who never answers cannot block an agentId for good.
 * Over a limit: 429 RATE_LIMITED with Retry-After = when the limit frees a place.
 */
import { AppError } from '@pag/contracts';

export interface CreationLimits {
  perClientPerHour: number;
  perAgentPerHour: number;
  pendingPerAgent: number;
  /** How long a pending handshake counts toward pendingPerAgent. */
  pendingCountsForSeconds: number;
}

export const DEFAULT_CREATION_LIMITS: CreationLimits = {
  perClientPerHour: 10,
  perAgentPerHour: 5,
  pendingPerAgent: 3,
  pendingCountsForSeconds: 24 * 3600,
};

export const HOUR_SECONDS = 3600;

/**
 * Creation times, newest first, each list cut at its limit (the store asks for no more): the
 * client's in the last hour, the agentId's in the last hour, the agentId's pending ones still
 * counting.
 */
export interface CreationHistory {
  fromClient: Date[];
  ofAgent: Date[];
  pendingOfAgent: Date[];
}

/** Seconds until `since` is `windowSeconds` old; at least 1. */
function secondsUntilOut(since: Date, windowSeconds: number, now: Date): number {
  return Math.max(1, Math.ceil((since.getTime() + windowSeconds * 1000 - now.getTime()) / 1000));
}

function limited(message: string, retryAfterSeconds: number, now: Date): AppError {
  const at = new Date(now.getTime() + retryAfterSeconds * 1000).toISOString();
  return new AppError('RATE_LIMITED', `${message} Retry in ${retryAfterSeconds} s (at ${at}).`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
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
  const client = blocking(history.fromClient, limits.perClientPerHour);
  if (client)
    return limited(
      `Too many handshakes from your address: at most ${limits.perClientPerHour} per hour.`,
      secondsUntilOut(client, HOUR_SECONDS, now),
      now,
    );
  const pending = blocking(history.pendingOfAgent, limits.pendingPerAgent);
  if (pending)
    return limited(
      `agentId "${agentRef}" already has ${limits.pendingPerAgent} handshakes waiting for the owner; ` +
        'poll their status: a new one is possible as soon as the owner decides one.',
      secondsUntilOut(pending, limits.pendingCountsForSeconds, now),
      now,
    );
  const agent = blocking(history.ofAgent, limits.perAgentPerHour);
  if (agent)
    return limited(
      `Too many handshakes for agentId "${agentRef}": at most ${limits.perAgentPerHour} per hour.`,
      secondsUntilOut(agent, HOUR_SECONDS, now),
      now,
    );
  return null;
}
