export { freePort } from '../net/free-port.ts';
export { gatewayHeaders, TEST_GATEWAY_SECRET } from './gateway-proof.ts';
export type { NatsServer, NatsServerOptions } from './nats-server.ts';
export { startNatsServer } from './nats-server.ts';
export { openConnections, openConnectionsOnceClosed } from './open-connections.ts';
export type { TestPostgres } from './postgres.ts';
export { startTestPostgres } from './postgres.ts';
export { tableDigests } from './table-digests.ts';
