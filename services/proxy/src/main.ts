/**
 * Start-up of the proxy service as its own process: config, logger, bus, the internal HTTP
 * listener, the ops listener (probes and metrics) and signal handling. The ready line names the
 * internal URL (the gateway's PROXY_URL).
 */
import { runService } from '@pag/kit';
import { loadProxyConfig } from './config.ts';
import { startProxy } from './service.ts';

await runService({
  name: 'proxy',
  loadConfig: loadProxyConfig,
  start: startProxy,
  ready: (proxy) => ({ names: proxy.url, fields: { url: proxy.url } }),
});
