/**
 * Start-up of the gateway service as its own process (kit's runService: config, logger, ops listener,
 * bus, the service, signal handling), from its definition.
 */
import { runService } from '@pag/kit';
import { gatewayService } from './definition.ts';

await runService(gatewayService);
