/**
 * Start-up of the proxy service as its own process: config, logger, bus, the internal HTTP
 * listener, the ops listener (probes and metrics) and signal handling. The ready line names the
 * internal URL (the gateway's PROXY_URL).
 */
import { createBus, createLogger, runMain, Shutdown, startOps } from '@pag/kit';
import { loadProxyConfig } from './config.ts';
import { startProxy } from './service.ts';

await runMain('proxy', async () => {
  const config = loadProxyConfig(process.env);
  const logger = createLogger({ service: 'proxy', level: config.logLevel });
  const shutdown = new Shutdown(logger);
  shutdown.installSignalHandlers();

  const ops = await startOps({ port: config.opsPort, host: config.host });
  shutdown.add('ops', () => ops.close());
  const bus = await createBus({ natsUrl: config.natsUrl, name: 'proxy', logger });
  shutdown.add('bus', () => bus.close());
  ops.health.addReadinessCheck('bus', () => {
    if (!bus.isReady()) throw new Error('bus disconnected');
  });
  const proxy = await startProxy({ config, bus, logger, metrics: ops.metrics });
  shutdown.add('http', () => proxy.close());
  shutdown.add('readiness', () => ops.health.markShuttingDown());
  logger.info({ url: proxy.url, opsPort: ops.port }, 'proxy ready');
  process.stdout.write(`ready: ${proxy.url}\n`);
});
