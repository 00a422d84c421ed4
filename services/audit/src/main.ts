/**
 * Start-up of the audit service as its own process (kit's runService: config, logger, ops listener,
 * bus, the service, signal handling), from its definition.
 */
import { runService } from '@pag/kit';
import { auditService } from './definition.ts';

await runService(auditService);
