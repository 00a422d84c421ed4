/**
 * Every request subject of the bus, once, as an endpoint (define-endpoint.ts). The subject table
 * and the nats-server permissions are generated from this list; each route of the route table
 * that the gateway dispatches over the bus takes its subject from here. A new bus endpoint is one
 * entry here, one handler file in the answering service, one test.
 *
 * A subject whose service is not running is answered 503 by the gateway, naming the service.
 */
import { z } from 'zod';
import { AuditPage, AuditQuery } from '../schemas/audit.ts';
import {
  DeviceRegistered,
  DeviceRegisterRequest,
  HANDSHAKE_VERIFIER_HEADER,
  HandshakeCreated,
  HandshakeCreateRequest,
  HandshakeStatus,
  OwnerAccount,
  OwnerAccountQuery,
  UsageQuery,
  UsageReport,
} from '../schemas/auth.ts';
import {
  BrainContext,
  BrainContextQuery,
  ChatReply,
  ChatRequest,
  Conversation,
  Identity,
  KnowledgeBase,
  KnowledgeDocument,
  KnowledgeQuery,
  MemoryDeleted,
  MemoryEntry,
  MemoryWriteRequest,
  PersonaList,
} from '../schemas/brain.ts';
import {
  AccountItem,
  AccountOnly,
  Deleted,
  IdentitySet,
  KnowledgeSave,
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
} from '../schemas/brain-owner.ts';
import { ResourceId } from '../schemas/common.ts';
import {
  ConnectApiKey,
  ConnectDone,
  ConnectFinish,
  ConnectorList,
  ConnectStart,
  ConnectStarted,
  Disconnect,
  OwnerClientSet,
  OwnerConnectorSet,
  OwnerConnectors,
  OwnerSettings,
  ServiceList,
  VaultTokenList,
} from '../schemas/proxy.ts';
import {
  AgentGrant,
  AgentGrantQuery,
  OwnerTrigger,
  OwnerTriggerItem,
  OwnerTriggerList,
  OwnerTriggerMemory,
  OwnerTriggersQuery,
  PromptRunRequest,
  PromptRunResult,
  ProxyCallRequest,
  ProxyCallResult,
  Trigger,
  TriggerCreateRequest,
  TriggerList,
  TriggerRun,
  TriggerRunPage,
  TriggerRunsQuery,
  UsageCharge,
  UsageCharged,
} from '../schemas/trigger.ts';
import type { AnyEndpoint } from './define-endpoint.ts';
import { defineEndpoint, dispatchRequest } from './define-endpoint.ts';

/** Answered by the auth service. */
export const AuthEndpoints = {
  handshakeCreate: defineEndpoint({
    subject: 'auth.handshake.create',
    from: 'gateway',
    to: 'auth',
    routeId: 'createHandshake',
    caller: 'anonymous',
    request: dispatchRequest({ body: HandshakeCreateRequest }),
    reply: HandshakeCreated,
  }),
  handshakeStatus: defineEndpoint({
    subject: 'auth.handshake.status',
    from: 'gateway',
    to: 'auth',
    routeId: 'handshakeStatus',
    caller: 'anonymous',
    request: dispatchRequest({
      params: z.object({ handshakeId: z.string() }),
      // Checked by the handler, which words a malformed verifier for the client (not as a message field).
      headers: z.object({ [HANDSHAKE_VERIFIER_HEADER]: z.string().optional() }).optional(),
    }),
    reply: HandshakeStatus,
  }),
  deviceRegister: defineEndpoint({
    subject: 'auth.device.register',
    from: 'gateway',
    to: 'auth',
    routeId: 'registerDevice',
    caller: 'anonymous',
    request: dispatchRequest({ body: DeviceRegisterRequest }),
    reply: DeviceRegistered,
  }),
  /** An owner account's public facts, for services that seed their own records (the brain). */
  accountGet: defineEndpoint({
    subject: 'auth.account.get',
    from: 'brain',
    to: 'auth',
    request: OwnerAccountQuery,
    reply: OwnerAccount,
  }),
  /** An agent's status, scopes, limits and plan now: checked before each run of its triggers. */
  agentGrant: defineEndpoint({
    subject: 'auth.agents.grant',
    from: 'trigger',
    to: 'auth',
    request: AgentGrantQuery,
    reply: AgentGrant,
  }),
} as const;

/** Answered by the gateway, which counts every agent's requests. */
export const GatewayEndpoints = {
  /** Agents' usage for the auth service's dashboard. */
  usageGet: defineEndpoint({
    subject: 'gateway.usage.get',
    from: 'auth',
    to: 'gateway',
    request: UsageQuery,
    reply: UsageReport,
  }),
  /** One trigger run counted against its agent's daily and monthly limits, like a request. */
  usageCharge: defineEndpoint({
    subject: 'gateway.usage.charge',
    from: 'trigger',
    to: 'gateway',
    request: UsageCharge,
    reply: UsageCharged,
  }),
} as const;

/** Answered by the brain. */
export const BrainEndpoints = {
  /** The brain's parts of GET /api/v1/gateway/context (which the gateway answers itself). */
  contextGet: defineEndpoint({
    subject: 'brain.context.get',
    from: 'gateway',
    to: 'brain',
    routeId: 'gatewayContext',
    caller: 'account',
    request: dispatchRequest({ query: BrainContextQuery }),
    reply: BrainContext,
  }),
  memoryCreate: defineEndpoint({
    subject: 'brain.memory.create',
    from: 'gateway',
    to: 'brain',
    routeId: 'writeMemory',
    caller: 'account',
    request: dispatchRequest({ body: MemoryWriteRequest }),
    reply: MemoryEntry,
  }),
  memoryDelete: defineEndpoint({
    subject: 'brain.memory.delete',
    from: 'gateway',
    to: 'brain',
    routeId: 'deleteMemory',
    caller: 'account',
    request: dispatchRequest({ params: z.object({ id: ResourceId }) }),
    reply: MemoryDeleted,
  }),
  knowledgeList: defineEndpoint({
    subject: 'brain.knowledge.list',
    from: 'gateway',
    to: 'brain',
    routeId: 'knowledgeBase',
    caller: 'account',
    request: dispatchRequest({ query: KnowledgeQuery }),
    reply: KnowledgeBase,
  }),
  chatSend: defineEndpoint({
    subject: 'brain.chat.send',
    from: 'gateway',
    to: 'brain',
    routeId: 'chat',
    caller: 'account',
    request: dispatchRequest({ body: ChatRequest }),
    reply: ChatReply,
  }),
  conversationGet: defineEndpoint({
    subject: 'brain.conversations.get',
    from: 'gateway',
    to: 'brain',
    routeId: 'getConversation',
    caller: 'account',
    request: dispatchRequest({ params: z.object({ id: ResourceId }) }),
    reply: Conversation,
  }),
  personasList: defineEndpoint({
    subject: 'brain.personas.list',
    from: 'gateway',
    to: 'brain',
    routeId: 'listPersonas',
    caller: 'account',
    request: dispatchRequest(),
    reply: PersonaList,
  }),
  identityGet: defineEndpoint({
    subject: 'brain.identity.get',
    from: 'gateway',
    to: 'brain',
    routeId: 'identity',
    caller: 'account',
    request: dispatchRequest(),
    reply: Identity,
  }),
} as const;

/** Answered by the brain for the trigger service. */
export const BrainServiceEndpoints = {
  /** Carries out a trigger's prompt as its creating agent (persona, scopes), for one run. */
  promptRun: defineEndpoint({
    subject: 'brain.prompt.run',
    from: 'trigger',
    to: 'brain',
    request: PromptRunRequest,
    reply: PromptRunResult,
  }),
} as const;

/**
 * Answered by the brain for the owner: the dashboard (auth service) reads and changes the
 * signed-in owner's personas, knowledge, identity, memory and language-model provider. Every
 * message names the account; `pag` changes the same rows through the brain's stores directly.
 */
export const BrainOwnerEndpoints = {
  personasList: defineEndpoint({
    subject: 'brain.owner-personas.list',
    from: 'auth',
    to: 'brain',
    request: AccountOnly,
    reply: OwnerPersonaList,
  }),
  personaSave: defineEndpoint({
    subject: 'brain.owner-personas.save',
    from: 'auth',
    to: 'brain',
    request: PersonaSave,
    reply: OwnerPersona,
  }),
  personaDelete: defineEndpoint({
    subject: 'brain.owner-personas.delete',
    from: 'auth',
    to: 'brain',
    request: AccountItem,
    reply: Deleted,
  }),
  personaAssign: defineEndpoint({
    subject: 'brain.owner-personas.assign',
    from: 'auth',
    to: 'brain',
    request: PersonaAssign,
    reply: PersonaAssigned,
  }),
  knowledgeList: defineEndpoint({
    subject: 'brain.owner-knowledge.list',
    from: 'auth',
    to: 'brain',
    request: OwnerKnowledgeQuery,
    reply: KnowledgeBase,
  }),
  knowledgeGet: defineEndpoint({
    subject: 'brain.owner-knowledge.get',
    from: 'auth',
    to: 'brain',
    request: AccountItem,
    reply: KnowledgeDocument,
  }),
  knowledgeSave: defineEndpoint({
    subject: 'brain.owner-knowledge.save',
    from: 'auth',
    to: 'brain',
    request: KnowledgeSave,
    reply: KnowledgeDocument,
  }),
  knowledgeDelete: defineEndpoint({
    subject: 'brain.owner-knowledge.delete',
    from: 'auth',
    to: 'brain',
    request: AccountItem,
    reply: Deleted,
  }),
  identityGet: defineEndpoint({
    subject: 'brain.owner-identity.get',
    from: 'auth',
    to: 'brain',
    request: AccountOnly,
    reply: Identity,
  }),
  identitySet: defineEndpoint({
    subject: 'brain.owner-identity.set',
    from: 'auth',
    to: 'brain',
    request: IdentitySet,
    reply: Identity,
  }),
  memoryList: defineEndpoint({
    subject: 'brain.owner-memory.list',
    from: 'auth',
    to: 'brain',
    request: OwnerMemoryQuery,
    reply: OwnerMemoryPage,
  }),
  memoryDelete: defineEndpoint({
    subject: 'brain.owner-memory.delete',
    from: 'auth',
    to: 'brain',
    request: AccountItem,
    reply: Deleted,
  }),
  memoryClear: defineEndpoint({
    subject: 'brain.owner-memory.clear',
    from: 'auth',
    to: 'brain',
    request: MemoryClear,
    reply: MemoryCleared,
  }),
  providerGet: defineEndpoint({
    subject: 'brain.owner-provider.get',
    from: 'auth',
    to: 'brain',
    request: AccountOnly,
    reply: ProviderSettings,
  }),
  providerSet: defineEndpoint({
    subject: 'brain.owner-provider.set',
    from: 'auth',
    to: 'brain',
    request: ProviderSet,
    reply: ProviderSettings,
  }),
  /** Removes the owner's own provider: the deployment's applies again. */
  providerClear: defineEndpoint({
    subject: 'brain.owner-provider.clear',
    from: 'auth',
    to: 'brain',
    request: AccountOnly,
    reply: ProviderSettings,
  }),
} as const;

/** Answered by the proxy (an agent's proxied calls go over HTTP; a trigger run's over the bus). */
export const ProxyEndpoints = {
  /** A service call the brain makes while it carries out a trigger run, as the run's agent. */
  callForward: defineEndpoint({
    subject: 'proxy.calls.forward',
    from: 'brain',
    to: 'proxy',
    request: ProxyCallRequest,
    reply: ProxyCallResult,
  }),
  /** GET /api/v1/services, and the services part of the gateway context. */
  servicesList: defineEndpoint({
    subject: 'proxy.services.list',
    from: 'gateway',
    to: 'proxy',
    routeId: 'listServices',
    caller: 'account',
    request: dispatchRequest(),
    reply: ServiceList,
  }),
  vaultTokensList: defineEndpoint({
    subject: 'proxy.vault-tokens.list',
    from: 'gateway',
    to: 'proxy',
    routeId: 'listVaultTokens',
    caller: 'account',
    request: dispatchRequest(),
    reply: VaultTokenList,
  }),
  connectorsList: defineEndpoint({
    subject: 'proxy.connectors.list',
    from: 'gateway',
    to: 'proxy',
    routeId: 'listConnectors',
    caller: 'account',
    request: dispatchRequest(),
    reply: ConnectorList,
  }),
} as const;

/**
 * Answered by the proxy for the auth service's dashboard (/dashboard/services): the signed-in
 * owner's account is in every message (as the brain's owner endpoints). The proxy owns the
 * vault and every call to a provider; the dashboard owns the owner's session (docs/adr/0065).
 */
export const ProxyOwnerEndpoints = {
  connectorsList: defineEndpoint({
    subject: 'proxy.owner-connectors.list',
    from: 'auth',
    to: 'proxy',
    request: OwnerConnectors,
    reply: ConnectorList,
  }),
  connectStart: defineEndpoint({
    subject: 'proxy.owner-connect.start',
    from: 'auth',
    to: 'proxy',
    request: ConnectStart,
    reply: ConnectStarted,
  }),
  connectFinish: defineEndpoint({
    subject: 'proxy.owner-connect.finish',
    from: 'auth',
    to: 'proxy',
    request: ConnectFinish,
    reply: ConnectDone,
  }),
  connectApiKey: defineEndpoint({
    subject: 'proxy.owner-connect.api-key',
    from: 'auth',
    to: 'proxy',
    request: ConnectApiKey,
    reply: ConnectDone,
  }),
  disconnect: defineEndpoint({
    subject: 'proxy.owner-connect.disconnect',
    from: 'auth',
    to: 'proxy',
    request: Disconnect,
    reply: ConnectDone,
  }),
  /** What the owner entered (own clients, own connectors), never a secret (docs/adr/0068). */
  settingsGet: defineEndpoint({
    subject: 'proxy.owner-settings.get',
    from: 'auth',
    to: 'proxy',
    request: OwnerConnectors,
    reply: OwnerSettings,
  }),
  /** The owner's own OAuth client for a connector: it beats the deployment's for this owner. */
  clientSet: defineEndpoint({
    subject: 'proxy.owner-client.set',
    from: 'auth',
    to: 'proxy',
    request: OwnerClientSet,
    reply: ConnectDone,
  }),
  clientRemove: defineEndpoint({
    subject: 'proxy.owner-client.remove',
    from: 'auth',
    to: 'proxy',
    request: Disconnect,
    reply: ConnectDone,
  }),
  /** The owner's own generic OAuth 2.0 connector, created or replaced. */
  customSet: defineEndpoint({
    subject: 'proxy.owner-custom.set',
    from: 'auth',
    to: 'proxy',
    request: OwnerConnectorSet,
    reply: ConnectDone,
  }),
  /** Deletes it: the connection is revoked where possible and its tokens forgotten. */
  customRemove: defineEndpoint({
    subject: 'proxy.owner-custom.remove',
    from: 'auth',
    to: 'proxy',
    request: Disconnect,
    reply: ConnectDone,
  }),
} as const;

const TriggerId = z.object({ id: z.string() });

/** Answered by the trigger service: an agent's routes. */
export const TriggerEndpoints = {
  triggersCreate: defineEndpoint({
    subject: 'trigger.triggers.create',
    from: 'gateway',
    to: 'trigger',
    routeId: 'createTrigger',
    caller: 'account',
    request: dispatchRequest({ body: TriggerCreateRequest }),
    reply: Trigger,
  }),
  triggersList: defineEndpoint({
    subject: 'trigger.triggers.list',
    from: 'gateway',
    to: 'trigger',
    routeId: 'listTriggers',
    caller: 'account',
    request: dispatchRequest(),
    reply: TriggerList,
  }),
  triggerGet: defineEndpoint({
    subject: 'trigger.triggers.get',
    from: 'gateway',
    to: 'trigger',
    routeId: 'getTrigger',
    caller: 'account',
    request: dispatchRequest({ params: TriggerId }),
    reply: Trigger,
  }),
  triggersRun: defineEndpoint({
    subject: 'trigger.triggers.run',
    from: 'gateway',
    to: 'trigger',
    routeId: 'runTrigger',
    caller: 'account',
    request: dispatchRequest({ params: TriggerId }),
    reply: TriggerRun,
  }),
  runsList: defineEndpoint({
    subject: 'trigger.runs.list',
    from: 'gateway',
    to: 'trigger',
    routeId: 'listTriggerRuns',
    caller: 'account',
    request: dispatchRequest({ params: TriggerId, query: TriggerRunsQuery }),
    reply: TriggerRunPage,
  }),
  triggerPause: defineEndpoint({
    subject: 'trigger.triggers.pause',
    from: 'gateway',
    to: 'trigger',
    routeId: 'pauseTrigger',
    caller: 'account',
    request: dispatchRequest({ params: TriggerId }),
    reply: Trigger,
  }),
  triggerResume: defineEndpoint({
    subject: 'trigger.triggers.resume',
    from: 'gateway',
    to: 'trigger',
    routeId: 'resumeTrigger',
    caller: 'account',
    request: dispatchRequest({ params: TriggerId }),
    reply: Trigger,
  }),
  triggerDelete: defineEndpoint({
    subject: 'trigger.triggers.delete',
    from: 'gateway',
    to: 'trigger',
    routeId: 'deleteTrigger',
    caller: 'account',
    request: dispatchRequest({ params: TriggerId }),
    reply: Deleted,
  }),
} as const;

/**
 * Answered by the trigger service for the owner: the dashboard (auth service) lists every trigger
 * of the signed-in owner with its recent runs, and pauses, resumes, deletes or runs one.
 */
export const TriggerOwnerEndpoints = {
  list: defineEndpoint({
    subject: 'trigger.owner-triggers.list',
    from: 'auth',
    to: 'trigger',
    request: OwnerTriggersQuery,
    reply: OwnerTriggerList,
  }),
  pause: defineEndpoint({
    subject: 'trigger.owner-triggers.pause',
    from: 'auth',
    to: 'trigger',
    request: OwnerTriggerItem,
    reply: OwnerTrigger,
  }),
  resume: defineEndpoint({
    subject: 'trigger.owner-triggers.resume',
    from: 'auth',
    to: 'trigger',
    request: OwnerTriggerItem,
    reply: OwnerTrigger,
  }),
  remove: defineEndpoint({
    subject: 'trigger.owner-triggers.delete',
    from: 'auth',
    to: 'trigger',
    request: OwnerTriggerItem,
    reply: Deleted,
  }),
  run: defineEndpoint({
    subject: 'trigger.owner-triggers.run',
    from: 'auth',
    to: 'trigger',
    request: OwnerTriggerItem,
    reply: TriggerRun,
  }),
  /** Whether each run's output is also kept as a memory entry of the creating agent. */
  memory: defineEndpoint({
    subject: 'trigger.owner-triggers.memory',
    from: 'auth',
    to: 'trigger',
    request: OwnerTriggerMemory,
    reply: OwnerTrigger,
  }),
} as const;

/** Answered by the audit service. */
export const AuditEndpoints = {
  /** One owner's audit rows, for the auth service's /dashboard/audit and its export. */
  recordsList: defineEndpoint({
    subject: 'audit.records.list',
    from: 'auth',
    to: 'audit',
    request: AuditQuery,
    reply: AuditPage,
  }),
} as const;

/** Every bus endpoint, in the order of the subject table. */
export const EndpointList: readonly AnyEndpoint[] = [
  ...Object.values(AuthEndpoints),
  ...Object.values(GatewayEndpoints),
  ...Object.values(BrainEndpoints),
  ...Object.values(BrainServiceEndpoints),
  ...Object.values(BrainOwnerEndpoints),
  ...Object.values(ProxyEndpoints),
  ...Object.values(ProxyOwnerEndpoints),
  ...Object.values(TriggerEndpoints),
  ...Object.values(TriggerOwnerEndpoints),
  ...Object.values(AuditEndpoints),
];

/** The endpoint of a request subject; undefined for a subject nobody declared. */
export function endpointOf(subject: string): AnyEndpoint | undefined {
  return EndpointList.find((endpoint) => endpoint.subject === subject);
}
