/**
 * The brain service as one definition (kit's defineService): what its own process (main.ts), its
 * migrate command, the embedded stack and the testkit's startService all start from.
 * It has no listener but the ops one; the ready line names that port.
 */
import { defineService } from '@pag/kit';
import { brainConfig } from './config.ts';
import { brainDatabase } from './database.ts';
import { brainEndpoints } from './endpoints.ts';
import { startBrain } from './service.ts';

export const brainService = defineService({
  name: 'brain',
  config: brainConfig,
  database: brainDatabase,
  endpoints: brainEndpoints,
  start: startBrain,
});
