/**
 * Start-up of the gateway as its own process: config, logger, bus, the public listener, the ops
 * listener (probes and metrics) and signal handling.
 */
import { runService } from '@pag/kit';
import { loadGatewayConfig } from './config.ts';
import { startGateway } from './service.ts';

await runService({
  name: 'gateway',
  loadConfig: loadGatewayConfig,
  start: startGateway,
  ready: (gateway) => ({ names: gateway.publicUrl, fields: { publicUrl: gateway.publicUrl } }),
});
