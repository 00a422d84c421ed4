/**
 * Records every request's duration by route id (never the raw path, whose values are unbounded)
 * and connector when the response finishes.
 */
import type { Metrics } from '@pag/kit';
import type { NextFunction, Request, Response } from 'express';
import { state } from './state.ts';

export function observe(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    res.once('close', () => {
      const { startedAt, routeId, connector } = state(res);
      const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
      metrics.httpRequestDuration.observe(
        {
          service: 'proxy',
          method: req.method,
          route: routeId === undefined ? 'unmatched' : `${routeId}:${connector?.name ?? 'unknown'}`,
          status: String(res.statusCode),
        },
        seconds,
      );
    });
    next();
  };
}
