export { freePort } from '@pag/kit/testing';
export type { ReadyProcess, ReadyProcessOptions } from './ready-process.ts';
export { startReadyProcess } from './ready-process.ts';
export type { StackProcess, StackProcessOptions } from './stack-process.ts';
export { startStackProcess } from './stack-process.ts';
