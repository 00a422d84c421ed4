// audit
export type { ActionAuditInput, ActionAuditPublisher } from './audit/action-audit.ts';
export { actionAuditEvent, actionAuditPublisher, publishAuditEvent } from './audit/action-audit.ts';
// auth
export type {
  ActiveToken,
  IntrospectionClientOptions,
  IntrospectOptions,
  ProofVerdict,
  SignedRequest,
  TokenCheck,
  TokenShape,
} from './auth/mod.ts';
export {
  GATEWAY_SECRET_MIN_LENGTH,
  IntrospectionClient,
  legacyHeaderValue,
  MAX_SKEW_SECONDS,
  readIntrospectionAnswer,
  readLegacyHeader,
  signGatewayRequest,
  TOKEN_TAG_KEY_MIN,
  TokenTags,
  tokenSha256,
  verifyGatewayRequest,
} from './auth/mod.ts';
export type {
  AccountCaller,
  AnonymousCaller,
  Bus,
  BusHeaders,
  BusMessage,
  CallerOf,
  ConsumeBatchOptions,
  ConsumeOptions,
  CreateBusOptions,
  DurableBatchHandler,
  DurableHandler,
  DurableMessage,
  DurablePublishAck,
  DurablePublishOptions,
  EndpointHandler,
  EventHandler,
  MemoryBusOptions,
  NatsBusOptions,
  NatsCredentials,
  NatsCredentialsValues,
  NatsPermissions,
  NatsServerConfigOptions,
  ReplyStream,
  RequestHandler,
  RequestMessage,
  RequestOptions,
  ServeContext,
  ServiceCaller,
  StreamDefinition,
  StreamPart,
  StreamRequestOptions,
  SubscribeOptions,
  Subscription,
} from './bus/mod.ts';
export {
  BusCancelledError,
  BusNoRespondersError,
  BusTimeoutError,
  closeSubscriptions,
  createBus,
  handle,
  InvalidReplyError,
  MemoryBroker,
  MemoryBus,
  NatsBus,
  natsCredentialsEnv,
  natsCredentialsFrom,
  natsPermissions,
  RESERVED_EVENT_NAMES,
  relayEndpoint,
  relayEndpointStream,
  renderNatsServerConfig,
  requestEndpoint,
  requestEndpointStream,
  STREAM_IDLE_TIMEOUT_MS,
  STREAM_MAX_DURATION_MS,
  STREAM_MAX_EVENTS,
  serveEndpoints,
} from './bus/mod.ts';
export type {
  ConfigCheck,
  ConfigDefinition,
  ConfigIssue,
  ConfigOverrides,
  ConfigSpec,
  EnvShape,
  EnvValues,
} from './config/define-config.ts';
export { defineConfig } from './config/define-config.ts';
export type { ServiceProcessConfig } from './config/fragments.ts';
export {
  databaseEnv,
  logEnv,
  natsCheck,
  natsEnv,
  opsEnv,
  processEnv,
  processFrom,
} from './config/fragments.ts';
export type { Env } from './config/parse-config.ts';
export {
  ConfigError,
  envBoolean,
  envGatewaySecret,
  envLogLevel,
  envMilliseconds,
  envOrigin,
  envPort,
  envTokenTagKeys,
  envUrl,
  parseConfig,
} from './config/parse-config.ts';
// crypto
export { envSealingKey, openSecret, SealedSecretError, sealSecret } from './crypto/sealed-secret.ts';
export type {
  ApplyMigrationsOptions,
  ApplyMigrationsResult,
  ColumnShape,
  DisconnectableClient,
  EmbeddedPostgres,
  EmbeddedPostgresOptions,
  EnumShape,
  ForeignKeyShape,
  GroupCommitOptions,
  MigrationErrorCode,
  NotificationListener,
  PrismaClientOptions,
  PurgeJob,
  PurgeTask,
  SchemaDriftOptions,
  SchemaShape,
  TableShape,
} from './db/mod.ts';
export {
  applyMigrations,
  checksumMatches,
  compareShapes,
  createPrismaClient,
  findSchemaDrift,
  GroupCommit,
  listenForNotifications,
  MigrationError,
  migrationChecksum,
  PRISMA_MIGRATE_LOCK_KEY,
  runMigrateCommand,
  sqlPoolOf,
  startEmbeddedPostgres,
  startPurgeJob,
} from './db/mod.ts';
// discovery
export type {
  DirectorySnapshot,
  PresenceAnnouncerOptions,
  ServiceDirectoryOptions,
} from './discovery/mod.ts';
export { PresenceAnnouncer, ServiceDirectory } from './discovery/mod.ts';
export type {
  AuthenticateOptions,
  AuthFailureBudget,
  BearerIdentity,
  BearerIntrospector,
  ErrorHandlerOptions,
  Handover,
  InProcessEntry,
  ResourceState,
  RouteLookupOptions,
  StepRunner,
  VerifiedCaller,
} from './http/mod.ts';
export {
  authenticate,
  bearerChallenge,
  challengeScope,
  checkScope,
  errorHandler,
  FORWARDING_OPTIONS,
  gatewayOnly,
  koaErrorHandler,
  observe,
  recordDuration,
  requestId,
  resourceState,
  routeLookup,
  runSteps,
  suggestPath,
  toAppError,
} from './http/mod.ts';
export type { AnnouncePresenceOptions } from './lifecycle/announce-presence.ts';
export { announcePresence } from './lifecycle/announce-presence.ts';
export type {
  AnyServiceDefinition,
  ReadyLine,
  RunningService,
  ServiceDatabase,
  ServiceDefinition,
  ServiceDeps,
} from './lifecycle/define-service.ts';
export { defineService } from './lifecycle/define-service.ts';
export { closeServer, listen } from './lifecycle/http-server.ts';
export { isProcessAlive } from './lifecycle/process-alive.ts';
export { runMain } from './lifecycle/run-main.ts';
export { runService } from './lifecycle/run-service.ts';
export type { Closer } from './lifecycle/shutdown.ts';
export { Shutdown } from './lifecycle/shutdown.ts';
export type { Logger, LoggerOptions } from './log/logger.ts';
export { createLogger, requestLogger } from './log/logger.ts';
export { freePort } from './net/free-port.ts';
export type { AddressClass } from './net/public-address.ts';
export { classifyAddress, isAllowedAddress } from './net/public-address.ts';
export type { PublicFetchOptions, PublicFetchResult } from './net/public-fetch.ts';
export { checkedLookup, checkPublicUrl, fetchPublic, PublicFetchError } from './net/public-fetch.ts';
export type { ReadinessCheck, ReadinessReport } from './ops/health.ts';
export { Health } from './ops/health.ts';
export type { Metrics } from './ops/metrics.ts';
export { createMetrics } from './ops/metrics.ts';
export type { OpsHandler } from './ops/ops-handler.ts';
export { createOpsHandler, createOpsServer, OPS_PATHS } from './ops/ops-handler.ts';
export type { Ops } from './ops/start-ops.ts';
export { startOps } from './ops/start-ops.ts';
