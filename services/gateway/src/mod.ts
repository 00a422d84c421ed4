export type { GatewayConfig } from './config.ts';
export { loadGatewayConfig } from './config.ts';
export { gatewayDatabase } from './database.ts';
export type { GatewayDeps, RunningGateway } from './service.ts';
export { startGateway } from './service.ts';
