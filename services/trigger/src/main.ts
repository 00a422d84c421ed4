/**
 * Start-up of the trigger service as its own process (kit's runService: config, logger, ops
 * listener, bus, the service, signal handling), from its definition.
 */
import { runService } from '@pag/kit';
import { triggerService } from './definition.ts';

await runService(triggerService);
