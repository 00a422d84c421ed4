/**
 * Start-up of the brain as its own process: config, logger, the ops listener (probes and
 * metrics), the bus, the service, and signal handling. It needs NATS_URL to be reachable by the
 * gateway (the in-memory bus only serves callers in the same process).
 */
import { createBus, createLogger, runMain, Shutdown, startOps } from '@pag/kit';
import { loadBrainConfig } from './config.ts';
import { startBrain } from './service.ts';

await runMain('brain', async () => {
  const config = loadBrainConfig(process.env);
  const logger = createLogger({ service: 'brain', level: config.logLevel });
  const shutdown = new Shutdown(logger);
  shutdown.installSignalHandlers();

  const ops = await startOps({ port: config.opsPort, host: config.host });
  shutdown.add('ops', () => ops.close());
  const bus = await createBus({ natsUrl: config.natsUrl, name: 'brain', logger });
  shutdown.add('bus', () => bus.close());
  ops.health.addReadinessCheck('bus', () => {
    if (!bus.isReady()) throw new Error('bus disconnected');
  });
  const brain = await startBrain({ config, bus, logger, metrics: ops.metrics });
  shutdown.add('brain', () => brain.close());
  shutdown.add('readiness', () => ops.health.markShuttingDown());
  logger.info({ opsPort: ops.port, nats: config.natsUrl !== undefined }, 'brain ready');
  process.stdout.write(`ready: brain (ops port ${ops.port})\n`);
});
