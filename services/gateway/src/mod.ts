export type { GatewayConfig } from './config.ts';
export { gatewayConfig, loadGatewayConfig } from './config.ts';
export { gatewayDatabase } from './database.ts';
export { gatewayService } from './definition.ts';
export type { GatewayDeps, RunningGateway } from './service.ts';
export { startGateway } from './service.ts';
