export { freePort, tableDigests } from '@pag/kit/testing';
export type { Form, Page, StoredCookie } from './browser.ts';
export { Browser, csrfOf, locationOf, parseForms, signUp } from './browser.ts';
export type { ReadyProcess, ReadyProcessOptions } from './ready-process.ts';
export { startReadyProcess } from './ready-process.ts';
export type { StackProcess, StackProcessOptions } from './stack-process.ts';
export { startStackProcess } from './stack-process.ts';
export type { StartedService, StartServiceOptions } from './start-service.ts';
export { startService } from './start-service.ts';
