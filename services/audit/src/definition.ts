/**
 * The audit service as one definition (kit's defineService): what its own process (main.ts), its
 * migrate command, the embedded stack and the testkit's startService all start from.
 * It has no listener but the ops one; the ready line names that port.
 */
import { defineService } from '@pag/kit';
import { auditConfig } from './config.ts';
import { auditDatabase } from './database.ts';
import { auditEndpoints } from './endpoints.ts';
import { startAudit } from './service.ts';

export const auditService = defineService({
  name: 'audit',
  config: auditConfig,
  database: auditDatabase,
  endpoints: auditEndpoints,
  start: startAudit,
});
