export { AGENT_CONDUCT_RULE, API_PREFIX } from './api.ts';
export { PROVIDERS, providerNamed } from './connectors/catalogue.ts';
export type {
  Access,
  ConnectorAccess,
  ConnectorName,
  RestConnectorAccess,
  RpcConnectorAccess,
} from './connectors/connector-access.ts';
export {
  accessOf,
  CONNECTOR_NAMES,
  ConnectorAccessTable,
  connectorAccess,
  methodOverrideIn,
  operationResource,
} from './connectors/connector-access.ts';
export type {
  ConnectorOperation,
  OAuth2Auth,
  ProviderDefinition,
  ProviderInput,
} from './connectors/provider-definition.ts';
export {
  isLoopbackHost,
  METHOD_OVERRIDES,
  providerSchema,
  REST_READ,
} from './connectors/provider-definition.ts';
export { SCOPE_SET_RESOURCES, scopeSetGrants } from './connectors/scope-sets.ts';
export type {
  AnyEndpoint,
  Endpoint,
  EndpointCaller,
  EndpointInput,
  EndpointReply,
  EndpointRequest,
  RouteCaller,
} from './endpoints/define-endpoint.ts';
export { defineEndpoint, dispatchRequest, subjectsOf } from './endpoints/define-endpoint.ts';
export {
  AuditEndpoints,
  AuthEndpoints,
  BrainEndpoints,
  BrainOwnerEndpoints,
  BrainServiceEndpoints,
  EndpointList,
  endpointOf,
  GatewayEndpoints,
  ProxyEndpoints,
  ProxyOwnerEndpoints,
  TriggerEndpoints,
  TriggerOwnerEndpoints,
} from './endpoints/endpoint-list.ts';
export type { AppErrorOptions, ErrorCode } from './errors.ts';
export { AppError, ErrorBody, ErrorCatalogue, errorCodes, isErrorCode, toErrorBody } from './errors.ts';
export type { InvalidRequestOptions } from './invalid-request.ts';
export { invalidRequest, zodProblems } from './invalid-request.ts';
export type { OpenApiDocument, OpenApiOptions } from './openapi/build-openapi.ts';
export { buildOpenApiDocument } from './openapi/build-openapi.ts';
export type { JsonObject } from './openapi/components.ts';
export { discoveryEndpoints, endpointsForScopes } from './routes/endpoint-listing.ts';
export type { MethodMismatch, RouteMatch, RouteParams } from './routes/match-route.ts';
export {
  accessByMethod,
  createRouteMatcher,
  documentedScope,
  matchRoute,
  requiredScope,
  resourceOf,
} from './routes/match-route.ts';
export { OAUTH_ROUTES, SERVER_METADATA_PATHS } from './routes/oauth-routes.ts';
export type { ProtectedResourceName } from './routes/protected-resources.ts';
export {
  MCP_PATH,
  PROTECTED_RESOURCES,
  protectedResourceId,
  protectedResourceIds,
  protectedResourceMetadataUrl,
  protectedResourceOfPath,
} from './routes/protected-resources.ts';
export type { CompiledPath } from './routes/route-path.ts';
export { compilePath, toOpenApiPath } from './routes/route-path.ts';
export { PROXY_PATH, PROXY_SCOPE, RouteTable, routeById } from './routes/route-table.ts';
export type { HttpMethod, RouteDefinition, RouteService } from './routes/route-types.ts';
export { HTTP_METHODS, ROUTE_SERVICES } from './routes/route-types.ts';
export { AUDIT_PAGE_MAX, AUDIT_STATUS_CLASSES, AuditPage, AuditQuery, AuditRecord } from './schemas/audit.ts';
export type { HandshakeStatusValue, Plan, TokenDelivery, TokenKind } from './schemas/auth.ts';
export {
  AgentIntrospectionClaims,
  AgentUsage,
  Availability,
  CodeVerifier,
  DEVICE_POLL_INTERVAL_SECONDS,
  DeviceRegistered,
  DeviceRegisterRequest,
  EndpointAccess,
  EndpointGrant,
  HANDSHAKE_POLL_INTERVAL_SECONDS,
  HANDSHAKE_STATUSES,
  HANDSHAKE_VERIFIER_HEADER,
  HandshakeCreated,
  HandshakeCreateRequest,
  HandshakeStatus,
  HandshakeToken,
  OwnerAccount,
  OwnerAccountQuery,
  PLANS,
  TOKEN_DELIVERIES,
  TOKEN_KINDS,
  TokenCapabilities,
  UsageQuery,
  UsageReport,
} from './schemas/auth.ts';
export {
  BRAIN_PAGE_DEFAULT,
  BRAIN_PAGE_MAX,
  BrainContext,
  CHAT_MESSAGE_MAX_BYTES,
  CHAT_ROUTE_TIMEOUT_MS,
  ChatReply,
  ChatRequest,
  ChatSources,
  ChatUsage,
  CONTEXT_MEMORY_MAX,
  CONTEXT_MEMORY_MAX_BYTES,
  CONTEXT_PARTS,
  Conversation,
  ConversationMessage,
  GatewayContext,
  Identity,
  KNOWLEDGE_KINDS,
  KNOWLEDGE_MAX_BYTES,
  KnowledgeBase,
  KnowledgeDocument,
  KnowledgeKind,
  KnowledgeQuery,
  MEMORY_MAX_BYTES,
  MemoryDeleted,
  MemoryEntry,
  MemoryWriteRequest,
  Persona,
  PersonaList,
  UnavailablePart,
} from './schemas/brain.ts';
export {
  AccountItem,
  AccountOnly,
  Deleted,
  IdentitySet,
  isLocale,
  KnowledgeSave,
  Locale,
  MemoryClear,
  MemoryCleared,
  OwnerKnowledgeQuery,
  OwnerMemoryPage,
  OwnerMemoryQuery,
  OwnerPersona,
  OwnerPersonaList,
  PersonaAssign,
  PersonaAssigned,
  PersonaSave,
  ProviderSet,
  ProviderSettings,
  SOUL_CONTENT_MAX_BYTES,
} from './schemas/brain-owner.ts';
export {
  displayName,
  isCleanName,
  isTimeZone,
  NAME_CHARACTERS_MESSAGE,
  ServiceName,
  storableString,
  Timestamp,
  TimeZone,
  utf8Length,
} from './schemas/common.ts';
export {
  AgentAuthBlock,
  ANONYMOUS_CREDENTIAL_TYPES,
  CREDENTIAL_TYPES,
  DiscoveryIndex,
  IDENTITY_TYPES,
  OAuthServerMetadata,
  PublicCapabilities,
  QuickStart,
  REGISTRATION_METHODS,
} from './schemas/discovery.ts';
export type { AuditActorType, AuditDecision, AuditEventSource } from './schemas/events.ts';
export {
  ActionAuditEvent,
  AUDIT_ACTION_PATTERN,
  AUDIT_ACTOR_TYPES,
  AUDIT_DECISIONS,
  AUDIT_EVENT_SOURCES,
  AuditDetail,
  AuditEvent,
  DeviceEvent,
  DispatchRequest,
  GATEWAY_PROOF_HEADER,
  HandshakeDecidedEvent,
  MessageHeaders,
  PROXY_CALL_HEADER,
  ProxiedCall,
  RequestAuditEvent,
  requestIdFor,
  TokenRevokedEvent,
} from './schemas/events.ts';
export { MCP_CHALLENGE_SCOPES, McpRequest } from './schemas/mcp.ts';
export {
  PRESENCE_INTERVAL_MS,
  PRESENCE_MISSED_BEATS,
  PresenceAnnouncement,
  PresenceRequest,
} from './schemas/presence.ts';
export {
  ConnectApiKey,
  ConnectDone,
  ConnectedService,
  ConnectFinish,
  Connector,
  ConnectorList,
  ConnectStart,
  ConnectStarted,
  Disconnect,
  OwnerClientSet,
  OwnerConnectorFields,
  type OwnerConnectorInput,
  OwnerConnectorSet,
  OwnerConnectors,
  OwnerSettings,
  ServiceList,
  VaultTokenList,
  VaultTokenMetadata,
} from './schemas/proxy.ts';
export { SchemaCatalogue } from './schemas/schema-catalogue.ts';
export { findUnstorableText, isStorableText, unstorableReason } from './schemas/storable-text.ts';
export type {
  PromptRunRequest as PromptRunRequestType,
  PromptRunResult as PromptRunResultType,
  TriggerRunStatus as TriggerRunStatusType,
  TriggerStatus as TriggerStatusType,
} from './schemas/trigger.ts';
export {
  AgentGrant,
  AgentGrantQuery,
  OwnerTrigger,
  OwnerTriggerItem,
  OwnerTriggerList,
  OwnerTriggerMemory,
  OwnerTriggersQuery,
  PROXY_CALL_BODY_MAX_BYTES,
  PromptRunRequest,
  PromptRunResult,
  PromptServiceCall,
  ProxyCallRequest,
  ProxyCallResult,
  SCHEDULE_TYPES,
  TRIGGER_OUTPUT_MAX_BYTES,
  TRIGGER_RUN_STATUSES,
  TRIGGER_RUNS_PAGE_MAX,
  TRIGGER_STATUSES,
  Trigger,
  TriggerCreateRequest,
  TriggerList,
  TriggerRun,
  TriggerRunCause,
  TriggerRunError,
  TriggerRunPage,
  TriggerRunRecord,
  TriggerRunStatus,
  TriggerRunsQuery,
  TriggerSchedule,
  TriggerStatus,
  UsageCharge,
  UsageCharged,
  WEEKDAYS,
} from './schemas/trigger.ts';
export type { CatalogueScope, HandshakeScope } from './scopes/scope-catalogue.ts';
export {
  catalogueEntry,
  describeScope,
  HANDSHAKE_SCOPES,
  isScopeName,
  ScopeCatalogue,
} from './scopes/scope-catalogue.ts';
export type { NamedScope, ParsedScope, ScopeAccess } from './scopes/scope-grammar.ts';
export {
  isScope,
  NAMED_SCOPES,
  parseScope,
  parseScopeList,
  SCOPE_NAME_PATTERN,
  tryParseScope,
} from './scopes/scope-grammar.ts';
export { expandScopes, insufficientScope, missingScope, scopeGrants } from './scopes/scope-matcher.ts';
export type { AuditSource, NatsUser, SubjectRoute } from './subjects.ts';
export {
  AUDIT_SOURCES,
  AuditStream,
  AuditSubjects,
  AuthSubjects,
  auditSubject,
  BrainOwnerSubjects,
  BrainServiceSubjects,
  BrainSubjects,
  EventSubjects,
  GatewaySubjects,
  NATS_USERS,
  natsInboxPrefix,
  PresenceSubjects,
  ProxyOwnerSubjects,
  ProxySubjects,
  presenceSubject,
  QueueGroups,
  SubjectTable,
  TriggerOwnerSubjects,
  TriggerSubjects,
} from './subjects.ts';
export type { InactiveReason, IssuedTokenKind } from './token-format.ts';
export {
  INACTIVE_REASONS,
  isMalformedToken,
  TOKEN_INACTIVE_HEADER,
  TOKEN_KIND_CODES,
  TOKEN_LEGACY_HEADER,
  TOKEN_PATTERN,
  TOKEN_RANDOM_LENGTH,
  TOKEN_TAG_LENGTH,
} from './token-format.ts';
export {
  expiredTokenHint,
  handshakeCanGrant,
  insufficientScopeHint,
  revokedTokenHint,
  tokenKindOf,
  unknownTokenHint,
} from './token-remedies.ts';
