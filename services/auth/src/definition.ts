/**
 * The auth service as one definition (kit's defineService): what its own process (main.ts), its
 * migrate command, the embedded stack and the testkit's startService all start from.
 * The ready line names the internal URL (the gateway's AUTH_URL).
 */
import { defineService } from '@pag/kit';
import { authConfig } from './config.ts';
import { authDatabase } from './database.ts';
import { authEndpoints } from './endpoints.ts';
import { startAuth } from './service.ts';

export const authService = defineService({
  name: 'auth',
  config: authConfig,
  database: authDatabase,
  endpoints: authEndpoints,
  start: startAuth,
  ready: (auth) => ({ names: auth.url, fields: { url: auth.url, publicUrl: auth.publicUrl } }),
});
