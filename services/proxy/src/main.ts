/**
 * Start-up of the proxy service as its own process (kit's runService: config, logger, ops listener,
 * bus, the service, signal handling), from its definition.
 */
import { runService } from '@pag/kit';
import { proxyService } from './definition.ts';

await runService(proxyService);
