/**
 * Every named HTTP body schema, keyed by the name it carries in the OpenAPI document
 * (`#/components/schemas/<name>`). A schema used by a route must be here; nested schemas listed
 * here become references instead of being repeated.
 */
import { ErrorBody } from '../errors.ts';
import {
  DeviceRegistered,
  DeviceRegisterRequest,
  EndpointAccess,
  HandshakeCreated,
  HandshakeCreateRequest,
  HandshakeStatus,
  TokenCapabilities,
} from './auth.ts';
import {
  ChatReply,
  ChatRequest,
  ChatSources,
  ChatUsage,
  Conversation,
  ConversationMessage,
  GatewayContext,
  Identity,
  KnowledgeBase,
  KnowledgeDocument,
  MemoryDeleted,
  MemoryEntry,
  MemoryWriteRequest,
  Persona,
  PersonaList,
} from './brain.ts';
import { Deleted } from './brain-owner.ts';
import {
  AgentAuthBlock,
  DiscoveryIndex,
  OAuthServerMetadata,
  PublicCapabilities,
  QuickStart,
} from './discovery.ts';
import { McpRequest } from './mcp.ts';
import {
  ConnectedService,
  Connector,
  ConnectorList,
  ServiceList,
  VaultTokenList,
  VaultTokenMetadata,
} from './proxy.ts';
import {
  Trigger,
  TriggerCreateRequest,
  TriggerList,
  TriggerRun,
  TriggerRunPage,
  TriggerRunRecord,
  TriggerSchedule,
} from './trigger.ts';

export const SchemaCatalogue = {
  ErrorBody,
  DiscoveryIndex,
  QuickStart,
  PublicCapabilities,
  AgentAuthBlock,
  OAuthServerMetadata,
  HandshakeCreateRequest,
  HandshakeCreated,
  HandshakeStatus,
  DeviceRegisterRequest,
  DeviceRegistered,
  EndpointAccess,
  TokenCapabilities,
  MemoryWriteRequest,
  MemoryEntry,
  KnowledgeDocument,
  KnowledgeBase,
  MemoryDeleted,
  ChatRequest,
  ChatSources,
  ChatUsage,
  ChatReply,
  ConversationMessage,
  Conversation,
  Persona,
  PersonaList,
  Identity,
  GatewayContext,
  ConnectedService,
  ServiceList,
  VaultTokenMetadata,
  VaultTokenList,
  Connector,
  ConnectorList,
  TriggerSchedule,
  TriggerCreateRequest,
  Trigger,
  TriggerList,
  TriggerRun,
  TriggerRunRecord,
  TriggerRunPage,
  Deleted,
  McpRequest,
} as const;
