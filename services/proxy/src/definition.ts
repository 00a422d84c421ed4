/**
 * The proxy service as one definition (kit's defineService): what its own process (main.ts), its
 * migrate command, the embedded stack and the testkit's startService all start from.
 * The ready line names the internal URL (the gateway's PROXY_URL).
 */
import { defineService } from '@pag/kit';
import { proxyConfig } from './config.ts';
import { proxyDatabase } from './database.ts';
import { proxyEndpoints } from './endpoints.ts';
import { startProxy } from './service.ts';

export const proxyService = defineService({
  name: 'proxy',
  config: proxyConfig,
  database: proxyDatabase,
  endpoints: proxyEndpoints,
  start: startProxy,
  ready: (proxy) => ({ names: proxy.url, fields: { url: proxy.url } }),
});
