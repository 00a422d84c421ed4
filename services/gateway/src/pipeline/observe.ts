/**
 * Records every request's duration by route template (never the raw path, which would make
 * metric labels unbounded) when the response finishes.
 */
import type { Metrics } from '@pag/kit';
import type { NextFunction, Request, Response } from 'express';
import { state } from './state.ts';

export function observe(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    res.once('finish', () => {
      const { startedAt, route, forwardedTo } = state(res);
      const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
      metrics.httpRequestDuration.observe(
        {
          service: 'gateway',
          method: req.method,
          route: route?.id ?? (forwardedTo === undefined ? 'unmatched' : `forward:${forwardedTo}`),
          status: String(res.statusCode),
        },
        seconds,
      );
    });
    next();
  };
}
