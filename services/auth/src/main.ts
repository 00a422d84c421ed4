/**
 * Start-up of the auth service as its own process: config, logger, bus, the internal HTTP
 * listener, the ops listener (probes and metrics) and signal handling. The ready line names the
 * internal URL (the gateway's AUTH_URL).
 */
import { runService } from '@pag/kit';
import { loadAuthConfig } from './config.ts';
import { startAuth } from './service.ts';

await runService({
  name: 'auth',
  loadConfig: loadAuthConfig,
  start: startAuth,
  ready: (auth) => ({ names: auth.url, fields: { url: auth.url, publicUrl: auth.publicUrl } }),
});
