/**
 * Step 4: a call must do upstream what its scope was checked for. A query parameter by which the
 * connector's API would take another method (`_method` and the like; connector-access.ts in the
 * contracts says which, per connector) is 400 METHOD_OVERRIDE_REFUSED, and a GET or HEAD with a
 * body (which some servers read as a write's arguments) is 400 BODY_NOT_ALLOWED. Override headers
 * are dropped rather than refused (domain/header-policy.ts): they change nothing once removed.
 */
import { AppError, methodOverrideIn } from '@pag/contracts';
import type { NextFunction, Request, Response } from 'express';
import { state } from './state.ts';

export function refuseMethodChange(req: Request, res: Response, next: NextFunction): void {
  const service = state(res).params?.service ?? '';
  const query = req.originalUrl.indexOf('?');
  const override = query === -1 ? null : methodOverrideIn(service, req.originalUrl.slice(query + 1));
  if (override !== null) {
    next(
      new AppError(
        'METHOD_OVERRIDE_REFUSED',
        `The query parameter ${override} would change the method of the call to ${service}; it is refused.`,
      ),
    );
    return;
  }
  if ((req.method === 'GET' || req.method === 'HEAD') && hasBody(req)) {
    next(new AppError('BODY_NOT_ALLOWED', `A ${req.method} call to ${service} must not carry a body.`));
    return;
  }
  next();
}

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && Number(length) !== 0);
}
