/**
 * Step 4: the parsed body must match the route's schema from the contracts before anything is
 * dispatched. The error names each bad field and why.
 */
import { AppError, invalidRequest } from '@pag/contracts';
import type { NextFunction, Request, Response } from 'express';
import { state } from './state.ts';

export function validateBody(req: Request, res: Response, next: NextFunction): void {
  const schema = state(res).route?.requestBody;
  if (schema == null) {
    next();
    return;
  }
  if (req.body === undefined) {
    next(new AppError('INVALID_REQUEST', 'This endpoint needs a JSON body.'));
    return;
  }
  const result = schema.safeParse(req.body);
  if (!result.success) {
    next(invalidRequest('body', result.error, { whole: '(body)' }));
    return;
  }
  state(res).body = result.data;
  next();
}
