/**
 * After the scope check: every authenticated request counts against its agent's UTC day and
 * month, limits or not (the owner's dashboard shows the usage).
 *
 * An agent with a limit is decided through this replica's lease on its allowance
 * (docs/adr/0016-exact-limits-across-replicas.md): far from the limit, served from a block
 * reserved in the shared counter rows, without a round trip; near it, one statement per request.
 * At most `limit` requests are served per window across every replica. A served request carries
 * the RateLimit fields (what is left, when it resets); a refused one is 429 USAGE_LIMIT_EXCEEDED
 * with Retry-After, the RateLimit fields and a message naming the limit. A refusal because every
 * unit was served holds until the window resets or the limit changes, and is repeated from memory
 * (RecentRefusals: an agent retrying in a loop costs the database nothing); a refusal because the
 * last units are reserved by other replicas asks the agent to retry in a moment (they are served
 * or given back within a tick). Counts that cannot be taken are a 503: a limit is never skipped
 * silently. An agent without limits is counted in memory and written a moment later.
 */
import { AppError } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { rateLimitFields } from '../domain/rate-limit-fields.ts';
import { RecentRefusals } from '../domain/recent-refusals.ts';
import type { BrokenLimit, UsageCounts, UsageLimits, UsageWindows } from '../domain/usage-windows.ts';
import { describeBrokenLimits, retryAfterSeconds, usageWindows } from '../domain/usage-windows.ts';
import type { LimitDecision } from '../store/usage-leases.ts';
import type { AgentKey } from '../store/usage-store.ts';
import { state } from './state.ts';

/** Where counts are kept (the usage store), behind an interface like the introspector. */
export interface UsageCounter {
  /** Decides one request of an agent with a limit: served (and counted) or refused. */
  take(key: AgentKey, windows: UsageWindows, limits: UsageLimits, at: Date): Promise<LimitDecision>;
  /** Counts one request of an agent without limits, written shortly. */
  countLater(key: AgentKey, windows: UsageWindows, at: Date): void;
}

/**
 * Retry-After of a refusal while other replicas hold the last units: they settle what they served
 * and give back idle blocks every second.
 */
const HELD_RETRY_SECONDS = 2;

export function countUsage(counter: UsageCounter | undefined, logger: Logger): RequestHandler {
  const refusals = new RecentRefusals();
  return async (_req: Request, res: Response, next: NextFunction) => {
    const { identity, requestId } = state(res);
    if (identity === undefined) return next();
    if (counter === undefined) return next(uncountable());
    const now = new Date();
    const windows = usageWindows(now);
    const key = { accountId: identity.accountId, clientId: identity.clientId };
    const { limits } = identity;
    if (limits.daily === null && limits.monthly === null) {
      counter.countLater(key, windows, now);
      state(res).usage = { windows, counts: null };
      return next();
    }
    const agent = `${key.accountId}\n${key.clientId}`;
    const known = refusals.stillBroken(agent, limits, windows);
    if (known.length > 0) return next(limitExceeded(known, limits, windows, { day: 0, month: 0 }, now));
    let decision: LimitDecision;
    try {
      decision = await counter.take(key, windows, limits, now);
    } catch (error) {
      logger.error({ err: error, requestId }, 'usage not counted');
      return next(uncountable(error));
    }
    if (decision.served) {
      state(res).usage = { windows, counts: decision.used };
      const fields = rateLimitFields(limits, windows, decision.remaining, now);
      if (fields !== undefined) res.set(fields);
      return next();
    }
    const broken = brokenWindows(limits, windows, decision.remaining);
    if (decision.final) {
      refusals.remember(agent, limits, windows, broken);
      return next(limitExceeded(broken, limits, windows, decision.remaining, now));
    }
    next(limitExceeded(broken, limits, windows, decision.remaining, now, HELD_RETRY_SECONDS));
  };
}

/** The limited windows with nothing left. */
function brokenWindows(limits: UsageLimits, windows: UsageWindows, remaining: UsageCounts): BrokenLimit[] {
  const broken: BrokenLimit[] = [];
  if (limits.daily !== null && remaining.day <= 0)
    broken.push({ period: 'daily', limit: limits.daily, resetsAt: windows.day.endsAt });
  if (limits.monthly !== null && remaining.month <= 0)
    broken.push({ period: 'monthly', limit: limits.monthly, resetsAt: windows.month.endsAt });
  return broken;
}

function limitExceeded(
  broken: BrokenLimit[],
  limits: UsageLimits,
  windows: UsageWindows,
  remaining: UsageCounts,
  now: Date,
  retrySooner?: number,
): AppError {
  const retryAfter = retrySooner ?? retryAfterSeconds(broken, now);
  const resetIn =
    retrySooner === undefined ? {} : Object.fromEntries(broken.map((b) => [b.period, retrySooner]));
  // Windows a remembered refusal did not break still have units, but none this request could use.
  const left = {
    day: broken.some((b) => b.period === 'daily') ? 0 : remaining.day,
    month: broken.some((b) => b.period === 'monthly') ? 0 : remaining.month,
  };
  const message =
    retrySooner === undefined
      ? describeBrokenLimits(broken)
      : `${describeBrokenLimits(broken)} The last requests are reserved by other gateway replicas and may be given back within seconds.`;
  return new AppError('USAGE_LIMIT_EXCEEDED', message, {
    headers: { 'retry-after': String(retryAfter), ...rateLimitFields(limits, windows, left, now, resetIn) },
  });
}

function uncountable(cause?: unknown): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    "Requests cannot be counted against the agent's limits right now.",
    {
      cause,
      expose: true,
    },
  );
}
