/**
 * Step 4: a call must do upstream what its scope was checked for (calls/method-change.ts, the
 * same rule the brain's proxy.calls.forward is held to): an override parameter is 400
 * METHOD_OVERRIDE_REFUSED, a GET or HEAD with a body (Content-Length other than 0, or chunked)
 * 400 BODY_NOT_ALLOWED.
 */
import type { NextFunction, Request, Response } from 'express';
import { methodChange } from '../calls/method-change.ts';
import { state } from './state.ts';

export function refuseMethodChange(req: Request, res: Response, next: NextFunction): void {
  const service = state(res).params?.service ?? '';
  const query = req.originalUrl.indexOf('?');
  const refusal = methodChange(
    service,
    req.method,
    query === -1 ? '' : req.originalUrl.slice(query + 1),
    hasBody(req),
  );
  next(refusal ?? undefined);
}

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && Number(length) !== 0);
}
