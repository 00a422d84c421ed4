/**
 * Start-up of the gateway as its own process: config, logger, bus, the public listener, the ops
 * listener (probes and metrics) and signal handling.
 */
import { createBus, createLogger, runMain, Shutdown, startOps } from '@pag/kit';
import { loadGatewayConfig } from './config.ts';
import { startGateway } from './service.ts';

await runMain('gateway', async () => {
  const config = loadGatewayConfig(process.env);
  const logger = createLogger({ service: 'gateway', level: config.logLevel });
  const shutdown = new Shutdown(logger);
  shutdown.installSignalHandlers();

  const ops = await startOps({ port: config.opsPort, host: config.host });
  shutdown.add('ops', () => ops.close());
  const bus = await createBus({ natsUrl: config.natsUrl, name: 'gateway', logger });
  shutdown.add('bus', () => bus.close());
  ops.health.addReadinessCheck('bus', () => {
    if (!bus.isReady()) throw new Error('bus disconnected');
  });
  const gateway = await startGateway({ config, bus, logger, metrics: ops.metrics });
  shutdown.add('http', () => gateway.close());
  shutdown.add('readiness', () => ops.health.markShuttingDown());
  logger.info({ publicUrl: gateway.publicUrl, opsPort: ops.port }, 'gateway ready');
  process.stdout.write(`ready: ${gateway.publicUrl}\n`);
});
