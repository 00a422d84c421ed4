/**
 * The ops listener of a process: readiness, liveness and metrics on their own port, away from
 * the public origin, shared by every service the process runs.
 */
import { closeServer, listen } from '../lifecycle/http-server.ts';
import { Health } from './health.ts';
import type { Metrics } from './metrics.ts';
import { createMetrics } from './metrics.ts';
import { createOpsHandler, createOpsServer } from './ops-handler.ts';

export interface Ops {
  readonly health: Health;
  readonly metrics: Metrics;
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on `host` only, the same address as the service's own listener (HOST), never wider. */
export async function startOps(options: { port: number; host: string }): Promise<Ops> {
  const health = new Health();
  const metrics = createMetrics();
  const server = createOpsServer(createOpsHandler(health, metrics));
  const port = await listen(server, options.port, options.host);
  return { health, metrics, port, close: () => closeServer(server, 1_000) };
}
