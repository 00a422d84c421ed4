export type { StackConfig } from './config.ts';
export { loadStackConfig } from './config.ts';
export type { RunningStack } from './start-stack.ts';
export { startStack } from './start-stack.ts';
