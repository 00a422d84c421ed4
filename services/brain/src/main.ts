/**
 * Start-up of the brain as its own process: config, logger, the ops listener (probes and
 * metrics), the bus, the service, and signal handling. It needs NATS_URL to be reachable by the
 * gateway (the in-memory bus only serves callers in the same process).
 */
import { runService } from '@pag/kit';
import { loadBrainConfig } from './config.ts';
import { startBrain } from './service.ts';

await runService({
  name: 'brain',
  loadConfig: loadBrainConfig,
  start: startBrain,
  ready: (_brain, opsPort) => ({ names: `brain (ops port ${opsPort})` }),
});
