export { freePort, tableDigests } from '@pag/kit/testing';
export type { Form, Page, StoredCookie } from './browser.ts';
export { Browser, csrfOf, locationOf, parseForms, signUp } from './browser.ts';
export type { ServiceSelection } from './containers/gateway-container.ts';
export { GatewayContainer } from './containers/gateway-container.ts';
export type {
  DeviceApproval,
  GrantOptions,
  HandshakeApproval,
  OwnerOptions,
  Plan,
  TokenOptions,
} from './containers/owner.ts';
export { Owner } from './containers/owner.ts';
export type { RestartOptions } from './containers/restart.ts';
export type { DeploymentSecrets } from './containers/secrets.ts';
export { generateDeploymentSecrets } from './containers/secrets.ts';
export type { ServiceName } from './containers/services.ts';
export { SERVICE_NAMES } from './containers/services.ts';
export type { StartedGatewayContainer } from './containers/started-gateway-container.ts';
export type { ReadyProcess, ReadyProcessOptions } from './ready-process.ts';
export { startReadyProcess } from './ready-process.ts';
export type { StackProcess, StackProcessOptions } from './stack-process.ts';
export { startStackProcess } from './stack-process.ts';
export type { StartedService, StartServiceOptions } from './start-service.ts';
export { startService } from './start-service.ts';
