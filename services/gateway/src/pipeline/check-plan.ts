/**
 * A route of the table with a `plan` (creating a trigger: pro or heavy) is for owners on one of
 * those plans: anyone else gets 403 PLAN_REQUIRED naming the plans and the owner's, with the
 * catalogue's hint (the owner can upgrade). The plan is the owner's, read from introspection (the
 * auth service's `plan` claim); a token whose answer states none counts as `free`, so a missing
 * claim never opens a paid feature.
 *
 * It runs after authentication and before the scope check and the usage count: no token can lift
 * a plan, so an agent learns first what only the owner can change, and a refused request is
 * never counted as served usage (docs/adr/0049).
 */
import { AppError, type Plan } from '@pag/contracts';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { state } from './state.ts';

export const checkPlan: RequestHandler = (_req: Request, res: Response, next: NextFunction) => {
  const { route, identity } = state(res);
  if (route === undefined || route.plan === null || identity === undefined) return next();
  const plan: Plan = identity.plan ?? 'free';
  if (route.plan.includes(plan)) return next();
  next(
    new AppError(
      'PLAN_REQUIRED',
      `${route.method} ${route.path} needs the ${route.plan.join(' or ')} plan; the owner's plan is ${plan}.`,
    ),
  );
};
