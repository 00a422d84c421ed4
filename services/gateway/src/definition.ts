/**
 * The gateway service as one definition (kit's defineService): what its own process (main.ts), its
 * migrate command, the embedded stack and the testkit's startService all start from.
 * The ready line names the public URL.
 */
import { defineService } from '@pag/kit';
import { gatewayConfig } from './config.ts';
import { gatewayDatabase } from './database.ts';
import { gatewayEndpoints } from './endpoints.ts';
import { startGateway } from './service.ts';

export const gatewayService = defineService({
  name: 'gateway',
  config: gatewayConfig,
  database: gatewayDatabase,
  endpoints: gatewayEndpoints,
  start: startGateway,
  ready: (gateway) => ({ names: gateway.publicUrl, fields: { publicUrl: gateway.publicUrl } }),
});
