/**
 * The operations endpoints every service answers: GET /healthz, /readyz and /metrics. Plain
 * node:http so Koa, express and the services without an HTTP API share one implementation.
 */

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { Health } from './health.ts';
import type { Metrics } from './metrics.ts';

export const OPS_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

export type OpsHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(text);
}

/** Returns a handler that answers the ops paths and returns false for anything else. */
export function createOpsHandler(health: Health, metrics: Metrics): OpsHandler {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const path = (req.url ?? '').split('?', 1)[0];
    switch (path) {
      case '/healthz':
        sendJson(res, 200, { status: 'ok' });
        return true;
      case '/readyz':
        void health.readiness().then(
          (report) =>
            sendJson(res, report.ready ? 200 : 503, {
              status: report.ready ? 'ready' : 'not ready',
              ...report,
            }),
          () => sendJson(res, 503, { status: 'not ready' }),
        );
        return true;
      case '/metrics':
        void metrics.registry.metrics().then(
          (text) => {
            res.writeHead(200, { 'content-type': metrics.registry.contentType });
            res.end(text);
          },
          () => sendJson(res, 500, { status: 'metrics unavailable' }),
        );
        return true;
      default:
        return false;
    }
  };
}

/** A listener for services without an HTTP API of their own (probes and scraping only). */
export function createOpsServer(handler: OpsHandler): Server {
  return createServer((req, res) => {
    if (!handler(req, res))
      sendJson(res, 404, { error: { code: 'ROUTE_NOT_FOUND', message: 'Not an ops path.' } });
  });
}
