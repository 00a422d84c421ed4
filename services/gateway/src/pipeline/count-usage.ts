/**
 * After the scope check: every authenticated request counts against its agent's UTC day and
 * month, limits or not (the owner's dashboard shows the usage); only a route that says
 * countsUsage: false (the MCP endpoint, whose tool calls are requests of their own) is not. The decision is the usage
 * charger's (store/usage-charger.ts), the same a trigger run is charged by: exact across every
 * replica (docs/adr/0016-exact-limits-across-replicas.md).
 *
 * A served request of an agent with limits carries the RateLimit fields (what is left, when it
 * resets); a refused one is 429 USAGE_LIMIT_EXCEEDED with Retry-After, the RateLimit fields and a
 * message naming the limit. Counts that cannot be taken are a 503: a limit is never skipped
 * silently.
 */
import { AppError } from '@pag/contracts';
import type { Logger } from '@pag/kit';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { rateLimitFields } from '../domain/rate-limit-fields.ts';
import type { Charge, UsageCharger } from '../store/usage-charger.ts';
import { state } from './state.ts';

export function countUsage(charger: UsageCharger | undefined, logger: Logger): RequestHandler {
  return async (_req: Request, res: Response, next: NextFunction) => {
    const { identity, requestId, route } = state(res);
    // The MCP endpoint: its tool calls are counted, each as the request it makes.
    if (identity === undefined || route?.countsUsage === false) return next();
    if (charger === undefined) return next(uncountable());
    const now = new Date();
    const { limits } = identity;
    let charge: Charge;
    try {
      charge = await charger.charge(
        { accountId: identity.accountId, clientId: identity.clientId },
        limits,
        now,
      );
    } catch (error) {
      logger.error({ err: error, requestId }, 'usage not counted');
      return next(uncountable(error));
    }
    if (!charge.served) {
      return next(
        new AppError('USAGE_LIMIT_EXCEEDED', charge.message, {
          headers: {
            'retry-after': String(charge.retryAfterSeconds),
            ...rateLimitFields(limits, charge.windows, charge.remaining, now, charge.resetIn),
          },
        }),
      );
    }
    state(res).usage = { windows: charge.windows, counts: charge.used };
    if (charge.remaining !== null) {
      const fields = rateLimitFields(limits, charge.windows, charge.remaining, now);
      if (fields !== undefined) res.set(fields);
    }
    next();
  };
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
