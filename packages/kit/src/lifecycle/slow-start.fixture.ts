/**
 * A service for run-service.test.ts, run as its own process by runService: its start() resolves
 * only when the process gets SIGUSR2, so the test can ask /readyz while it is still starting.
 */
import { once } from 'node:events';
import { defineConfig } from '../config/define-config.ts';
import { processEnv, processFrom } from '../config/fragments.ts';
import { defineService } from './define-service.ts';
import { runService } from './run-service.ts';

const slowStart = defineService({
  name: 'slow-start',
  config: defineConfig({ env: processEnv(0), from: processFrom }),
  database: { schema: 'slow_start', migrationsDir: '.' },
  endpoints: [],
  async start() {
    await once(process, 'SIGUSR2');
    return { close: async () => {} };
  },
});

await runService(slowStart);
