export type { BrainConfig } from './config.ts';
export { brainConfig, loadBrainConfig } from './config.ts';
export { brainDatabase } from './database.ts';
export { brainService } from './definition.ts';
export { CONTEXT_MEMORY_LIMIT } from './handlers/context-get.ts';
export type { BrainDeps, RunningBrain } from './service.ts';
export { startBrain } from './service.ts';
