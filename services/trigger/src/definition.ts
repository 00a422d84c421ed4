/**
 * The trigger service as one definition (kit's defineService): what its own process (main.ts),
 * its migrate command, the embedded stack and the testkit's startService all start from.
 * It has no listener but the ops one; the ready line names that port.
 */
import { defineService } from '@pag/kit';
import { triggerConfig } from './config.ts';
import { triggerDatabase } from './database.ts';
import { triggerEndpoints } from './endpoints.ts';
import { startTrigger } from './service.ts';

export const triggerService = defineService({
  name: 'trigger',
  config: triggerConfig,
  database: triggerDatabase,
  endpoints: triggerEndpoints,
  start: startTrigger,
});
