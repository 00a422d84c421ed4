/**
 * Request durations into the process's histogram, counted exactly once per request, also when the
 * client goes away before the answer is complete: a response always emits `close` (after `finish`
 * when it completed, alone when it was cut), so `close` is the one event that sees every request.
 * A cut request is labelled status `aborted` whatever status line it may already have sent.
 * Routes are labelled by template, never by raw path (unbounded label values, secrets in URLs).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from '../ops/metrics.ts';
import { resourceState } from './state.ts';

/** Records one duration for `res` when it closes; its route is asked for then, when it is known. */
export function recordDuration<R extends ServerResponse>(
  metrics: Metrics,
  service: string,
  req: IncomingMessage,
  res: R,
  startedAt: bigint,
  route: (res: R) => string,
): void {
  res.once('close', () => {
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    metrics.httpRequestDuration.observe(
      {
        service,
        method: req.method ?? 'unknown',
        route: route(res),
        status: res.writableFinished ? String(res.statusCode) : 'aborted',
      },
      seconds,
    );
  });
}

/** The express step, after requestId (which starts the clock). */
export function observe(metrics: Metrics, service: string, label: (res: Response) => string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    recordDuration(metrics, service, req, res, resourceState(res).startedAt, label);
    next();
  };
}
