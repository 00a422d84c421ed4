/**
 * Headers every answer carries: API responses are never sniffed, framed, cached by shared caches
 * or given a referrer. (The fuller hardening of issue 5 adds to these.)
 */
import type { NextFunction, Request, Response } from 'express';

const HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set(HEADERS);
  next();
}
