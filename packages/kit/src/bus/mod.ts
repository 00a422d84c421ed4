export type { CreateBusOptions } from './create-bus.ts';
export { createBus } from './create-bus.ts';
export type { AccountCaller, AnonymousCaller, CallerOf, ServiceCaller } from './endpoint-caller.ts';
export { BusNoRespondersError, BusTimeoutError } from './errors.ts';
export { MemoryBroker } from './memory-broker.ts';
export type { MemoryBusOptions } from './memory-bus.ts';
export { MemoryBus } from './memory-bus.ts';
export type { NatsBusOptions } from './nats-bus.ts';
export { NatsBus } from './nats-bus.ts';
export type { NatsCredentials, NatsCredentialsValues } from './nats-credentials.ts';
export { natsCredentialsEnv, natsCredentialsFrom } from './nats-credentials.ts';
export type { NatsPermissions } from './nats-server-config.ts';
export { natsPermissions, renderNatsServerConfig } from './nats-server-config.ts';
export { InvalidReplyError, relayEndpoint, requestEndpoint } from './request-endpoint.ts';
export type { EndpointHandler, ServeContext } from './serve-endpoints.ts';
export { handle, serveEndpoints } from './serve-endpoints.ts';
export type {
  Bus,
  BusMessage,
  ConsumeBatchOptions,
  ConsumeOptions,
  DurableBatchHandler,
  DurableHandler,
  DurableMessage,
  DurablePublishAck,
  DurablePublishOptions,
  EventHandler,
  // Renamed so importing it never shadows the global fetch `Headers`.
  Headers as BusHeaders,
  RequestHandler,
  RequestOptions,
  StreamDefinition,
  SubscribeOptions,
  Subscription,
} from './types.ts';
