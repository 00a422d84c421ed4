/**
 * After the scope check: every authenticated request counts against its agent's UTC day and
 * month, limits or not (the owner's dashboard shows the usage).
 *
 * An agent with a limit is counted before it is served, in one statement every replica shares;
 * a request that takes it over a limit is taken back out of the counts (refused requests never
 * use up a limit) and refused with 429 USAGE_LIMIT_EXCEEDED, Retry-After (seconds until every
 * broken limit has reset) and a message naming the limit. Counts that cannot be taken are a 503:
 * a limit is never skipped silently. A refused agent is refused again without a statement until
 * the window resets or its limit changes (RecentRefusals): an agent retrying in a loop costs the
 * database nothing. An agent without limits is counted in memory and written a moment later
 * (nothing to decide, so nothing to wait for).
 */
import { AppError } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { RecentRefusals } from '../domain/recent-refusals.ts';
import type { BrokenLimit, UsageCounts, UsageWindows } from '../domain/usage-windows.ts';
import {
  brokenLimits,
  describeBrokenLimits,
  retryAfterSeconds,
  usageWindows,
} from '../domain/usage-windows.ts';
import type { AgentKey } from '../store/usage-store.ts';
import { state } from './state.ts';

/** Where counts are kept (the usage store), behind an interface like the introspector. */
export interface UsageCounter {
  /** Counts one request now; the counts returned include it. */
  count(key: AgentKey, windows: UsageWindows): Promise<UsageCounts>;
  uncount(key: AgentKey, windows: UsageWindows): Promise<void>;
  /** Counts one request, written shortly. */
  countLater(key: AgentKey, windows: UsageWindows, at: Date): void;
}

export function countUsage(counter: UsageCounter | undefined, logger: Logger): RequestHandler {
  const refusals = new RecentRefusals();
  return async (_req: Request, res: Response, next: NextFunction) => {
    const { identity, requestId } = state(res);
    if (identity === undefined) return next();
    if (counter === undefined) return next(uncountable());
    const now = new Date();
    const windows = usageWindows(now);
    const key = { accountId: identity.accountId, clientId: identity.clientId };
    if (identity.limits.daily === null && identity.limits.monthly === null) {
      counter.countLater(key, windows, now);
      state(res).usage = { windows, counts: null };
      return next();
    }
    const agent = `${key.accountId}\n${key.clientId}`;
    const known = refusals.stillBroken(agent, identity.limits, windows);
    if (known.length > 0) return next(limitExceeded(known, now));
    let counts: UsageCounts;
    try {
      counts = await counter.count(key, windows);
    } catch (error) {
      logger.error({ err: error, requestId }, 'usage not counted');
      return next(uncountable(error));
    }
    const broken = brokenLimits(identity.limits, counts, windows);
    if (broken.length === 0) {
      state(res).usage = { windows, counts };
      return next();
    }
    try {
      await counter.uncount(key, windows);
    } catch (error) {
      // The refusal stands; the agent's count stays one too high until the window ends.
      logger.warn({ err: error, requestId }, 'refused request not taken back out of the usage counts');
    }
    refusals.remember(agent, identity.limits, windows, broken);
    next(limitExceeded(broken, now));
  };
}

function limitExceeded(broken: BrokenLimit[], now: Date): AppError {
  return new AppError('USAGE_LIMIT_EXCEEDED', describeBrokenLimits(broken), {
    headers: { 'retry-after': String(retryAfterSeconds(broken, now)) },
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
