export type { CreateBusOptions } from './create-bus.ts';
export { createBus } from './create-bus.ts';
export type { AccountCaller, AnonymousCaller, CallerOf, ServiceCaller } from './endpoint-caller.ts';
export { BusCancelledError, BusNoRespondersError, BusTimeoutError } from './errors.ts';
export { MemoryBroker } from './memory-broker.ts';
export type { MemoryBusOptions } from './memory-bus.ts';
export { MemoryBus } from './memory-bus.ts';
export type { NatsBusOptions } from './nats-bus.ts';
export { NatsBus } from './nats-bus.ts';
export type { NatsCredentials, NatsCredentialsValues } from './nats-credentials.ts';
export { natsCredentialsEnv, natsCredentialsFrom } from './nats-credentials.ts';
export type { NatsPermissions, NatsServerConfigOptions } from './nats-server-config.ts';
export { natsPermissions, renderNatsServerConfig } from './nats-server-config.ts';
export {
  InvalidReplyError,
  relayEndpoint,
  relayEndpointStream,
  requestEndpoint,
  requestEndpointStream,
} from './request-endpoint.ts';
export type { EndpointHandler, ServeContext } from './serve-endpoints.ts';
export { closeSubscriptions, handle, serveEndpoints } from './serve-endpoints.ts';
export {
  RESERVED_EVENT_NAMES,
  STREAM_IDLE_TIMEOUT_MS,
  STREAM_MAX_DURATION_MS,
  STREAM_MAX_EVENTS,
} from './stream-wire.ts';
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
  ReplyStream,
  RequestHandler,
  RequestMessage,
  RequestOptions,
  StreamDefinition,
  StreamPart,
  StreamRequestOptions,
  SubscribeOptions,
  Subscription,
} from './types.ts';
