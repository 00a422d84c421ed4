/**
 * The entry point of a service running as its own process (`pnpm --filter @pag/<service> start`),
 * from its definition (define-service.ts): its config from the environment, a logger, the ops listener (probes and metrics), the bus
 * (ready only while connected), the service itself, then signal handling that shuts down in the
 * reverse order: readiness off first, the service (its HTTP listener drains for SHUTDOWN_DRAIN_MS,
 * then in-flight work finishes), the bus, the ops listener last. Prints `ready: …` once serving. The embedded stack starts the same services
 * with one shared bus and ops listener instead.
 */

import type { z } from 'zod';
import { createBus } from '../bus/create-bus.ts';
import type { ServiceProcessConfig } from '../config/fragments.ts';
import { createLogger } from '../log/logger.ts';
import { startOps } from '../ops/start-ops.ts';
import { announcePresence } from './announce-presence.ts';
import type { RunningService, ServiceDefinition } from './define-service.ts';
import { readyLine } from './define-service.ts';
import { runMain } from './run-main.ts';
import { Shutdown } from './shutdown.ts';

/** How long the closers have after the drain before the process exits anyway. */
const SHUTDOWN_TIMEOUT_MS = 8_000;

export function runService<S extends z.ZodRawShape, C extends ServiceProcessConfig, R extends RunningService>(
  definition: ServiceDefinition<S, C, R>,
): Promise<void> {
  const { name } = definition;
  return runMain(name, async () => {
    const config = definition.config.parse(process.env);
    const logger = createLogger({ service: name, level: config.logLevel });
    // The drain comes on top of the time the closers have to finish what is in flight.
    const shutdown = new Shutdown(logger, SHUTDOWN_TIMEOUT_MS + (config.shutdownDrainMs ?? 0));
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
    const service = await definition.start({ config, bus, logger, metrics: ops.metrics });
    shutdown.add(name, () => service.close());
    // Runs before the service's close: the directory drops this instance before it stops answering.
    shutdown.add('presence', await announcePresence(name, { bus, logger }));
    // Ready means serving: only now, once start() has subscribed and listened (before, the ops
    // listener called the process ready while its service still started, and a rolling restart
    // stopped the next replica too early).
    ops.health.markStarted();
    shutdown.add('readiness', () => ops.health.markShuttingDown());
    const { names, fields } = readyLine(definition, service, ops.port);
    logger.info({ ...fields, opsPort: ops.port }, `${name} ready`);
    process.stdout.write(`ready: ${names}\n`);
  });
}
