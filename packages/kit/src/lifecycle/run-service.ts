/**
 * The entry point of a service running as its own process (`pnpm --filter @pag/<service> start`):
 * its config from the environment, a logger, the ops listener (probes and metrics), the bus
 * (ready only while connected), the service itself, then signal handling that shuts down in the
 * reverse order: readiness off first, the service (finishing in-flight work), the bus, the ops
 * listener last. Prints `ready: …` once serving. The embedded stack starts the same services
 * with one shared bus and ops listener instead.
 */

import { createBus } from '../bus/create-bus.ts';
import type { NatsCredentials } from '../bus/nats-credentials.ts';
import type { Bus } from '../bus/types.ts';
import type { Env } from '../config/parse-config.ts';
import type { Logger } from '../log/logger.ts';
import { createLogger } from '../log/logger.ts';
import type { Metrics } from '../ops/metrics.ts';
import { startOps } from '../ops/start-ops.ts';
import { runMain } from './run-main.ts';
import { Shutdown } from './shutdown.ts';

/** What every service's config holds for this frame. */
export interface ServiceProcessConfig {
  logLevel: string;
  opsPort: number;
  /** The address the ops listener binds, as the service's own (HOST). */
  host: string;
  natsUrl: string | undefined;
  /** The service's own NATS user (NATS_USER/NATS_PASSWORD, NATS_NKEY_SEED or NATS_CREDS_FILE). */
  natsCredentials?: NatsCredentials | undefined;
}

export interface ServiceDeps<C> {
  config: C;
  bus: Bus;
  logger: Logger;
  metrics: Metrics;
}

export interface RunServiceOptions<C extends ServiceProcessConfig, S extends { close(): Promise<void> }> {
  name: string;
  loadConfig(env: Env): C;
  start(deps: ServiceDeps<C>): Promise<S>;
  /** What the ready line names (e.g. the URL callers use) and what the ready log line adds. */
  ready(service: S, opsPort: number): { names: string; fields?: Record<string, unknown> };
}

export function runService<C extends ServiceProcessConfig, S extends { close(): Promise<void> }>(
  options: RunServiceOptions<C, S>,
): Promise<void> {
  const { name } = options;
  return runMain(name, async () => {
    const config = options.loadConfig(process.env);
    const logger = createLogger({ service: name, level: config.logLevel });
    const shutdown = new Shutdown(logger);
    shutdown.installSignalHandlers();

    const ops = await startOps({ port: config.opsPort, host: config.host });
    shutdown.add('ops', () => ops.close());
    const bus = await createBus({
      natsUrl: config.natsUrl,
      natsCredentials: config.natsCredentials,
      name,
      logger,
    });
    shutdown.add('bus', () => bus.close());
    ops.health.addReadinessCheck('bus', () => {
      if (!bus.isReady()) throw new Error('bus disconnected');
    });
    const service = await options.start({ config, bus, logger, metrics: ops.metrics });
    shutdown.add(name, () => service.close());
    shutdown.add('readiness', () => ops.health.markShuttingDown());
    const { names, fields } = options.ready(service, ops.port);
    logger.info({ ...fields, opsPort: ops.port }, `${name} ready`);
    process.stdout.write(`ready: ${names}\n`);
  });
}
