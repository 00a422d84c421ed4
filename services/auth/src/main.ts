/**
 * Start-up of the auth service as its own process: config, logger, bus, the internal HTTP
 * listener, the ops listener (probes and metrics) and signal handling. The ready line names the
 * internal URL (the gateway's AUTH_URL).
 */
import { createBus, createLogger, runMain, Shutdown, startOps } from '@pag/kit';
import { loadAuthConfig } from './config.ts';
import { startAuth } from './service.ts';

await runMain('auth', async () => {
  const config = loadAuthConfig(process.env);
  const logger = createLogger({ service: 'auth', level: config.logLevel });
  const shutdown = new Shutdown(logger);
  shutdown.installSignalHandlers();

  const ops = await startOps({ port: config.opsPort, host: config.host });
  shutdown.add('ops', () => ops.close());
  const bus = await createBus({ natsUrl: config.natsUrl, name: 'auth', logger });
  shutdown.add('bus', () => bus.close());
  ops.health.addReadinessCheck('bus', () => {
    if (!bus.isReady()) throw new Error('bus disconnected');
  });
  const auth = await startAuth({ config, bus, logger, metrics: ops.metrics });
  shutdown.add('http', () => auth.close());
  shutdown.add('readiness', () => ops.health.markShuttingDown());
  logger.info({ url: auth.url, publicUrl: auth.publicUrl, opsPort: ops.port }, 'auth ready');
  process.stdout.write(`ready: ${auth.url}\n`);
});
