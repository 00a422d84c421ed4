/**
 * Every request the SDK makes to the API, as a table: the operation's method and path as the
 * OpenAPI document (GET /openapi.json) names them, and the names of the document's component
 * schemas for its request body and success answer. The SDK's types are computed from those names
 * (`z.input`/`z.output` of @pag/contracts' SchemaCatalogue, from which the document is built), and
 * test/operations.test.ts holds each row against the served document: the path and method exist,
 * the body and answer are exactly those components. See docs/adr/0064-the-sdk.md.
 */
import type { SchemaCatalogue } from '@pag/contracts';
import type { z } from 'zod';

type Catalogue = typeof SchemaCatalogue;
export type SchemaName = keyof Catalogue;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Operation {
  readonly method: HttpMethod;
  /** OpenAPI path template: `{name}` parameters. */
  readonly path: string;
  /** The JSON request body's component, or null when the operation takes none. */
  readonly body: SchemaName | null;
  /** The success answer's JSON component, or null when it is not one (the proxy's answer). */
  readonly response: SchemaName | null;
  /** The success status the document gives; `2XX` where it is the connected service's own. */
  readonly success: number | '2XX';
}

export const Operations = {
  capabilities: {
    method: 'GET',
    path: '/api/v1/tokens/me/capabilities',
    body: null,
    response: 'TokenCapabilities',
    success: 200,
  },
  context: {
    method: 'GET',
    path: '/api/v1/gateway/context',
    body: null,
    response: 'GatewayContext',
    success: 200,
  },
  writeMemory: {
    method: 'POST',
    path: '/api/v1/memory',
    body: 'MemoryWriteRequest',
    response: 'MemoryEntry',
    success: 201,
  },
  deleteMemory: {
    method: 'DELETE',
    path: '/api/v1/memory/{id}',
    body: null,
    response: 'MemoryDeleted',
    success: 200,
  },
  searchKnowledge: {
    method: 'GET',
    path: '/api/v1/brain/knowledge-base',
    body: null,
    response: 'KnowledgeBase',
    success: 200,
  },
  chat: {
    method: 'POST',
    path: '/api/v1/brain/chat',
    body: 'ChatRequest',
    response: 'ChatReply',
    success: 200,
  },
  listServices: {
    method: 'GET',
    path: '/api/v1/services',
    body: null,
    response: 'ServiceList',
    success: 200,
  },
  callServiceGet: {
    method: 'GET',
    path: '/api/v1/services/{service}/{path}',
    body: null,
    response: null,
    success: '2XX',
  },
  callServicePost: {
    method: 'POST',
    path: '/api/v1/services/{service}/{path}',
    body: null,
    response: null,
    success: '2XX',
  },
  callServicePut: {
    method: 'PUT',
    path: '/api/v1/services/{service}/{path}',
    body: null,
    response: null,
    success: '2XX',
  },
  callServicePatch: {
    method: 'PATCH',
    path: '/api/v1/services/{service}/{path}',
    body: null,
    response: null,
    success: '2XX',
  },
  callServiceDelete: {
    method: 'DELETE',
    path: '/api/v1/services/{service}/{path}',
    body: null,
    response: null,
    success: '2XX',
  },
  listTriggers: {
    method: 'GET',
    path: '/api/v1/triggers',
    body: null,
    response: 'TriggerList',
    success: 200,
  },
  createTrigger: {
    method: 'POST',
    path: '/api/v1/triggers',
    body: 'TriggerCreateRequest',
    response: 'Trigger',
    success: 201,
  },
  getTrigger: { method: 'GET', path: '/api/v1/triggers/{id}', body: null, response: 'Trigger', success: 200 },
  runTrigger: {
    method: 'POST',
    path: '/api/v1/triggers/{id}/run',
    body: null,
    response: 'TriggerRun',
    success: 202,
  },
  listTriggerRuns: {
    method: 'GET',
    path: '/api/v1/triggers/{id}/runs',
    body: null,
    response: 'TriggerRunPage',
    success: 200,
  },
  createHandshake: {
    method: 'POST',
    path: '/api/v1/handshakes',
    body: 'HandshakeCreateRequest',
    response: 'HandshakeCreated',
    success: 201,
  },
  handshakeStatus: {
    method: 'GET',
    path: '/api/v1/handshakes/{handshakeId}/status',
    body: null,
    response: 'HandshakeStatus',
    success: 200,
  },
  registerDevice: {
    method: 'POST',
    path: '/api/v1/agentic/asc/register',
    body: 'DeviceRegisterRequest',
    response: 'DeviceRegistered',
    success: 201,
  },
} as const satisfies Record<string, Operation>;

export type Operations = typeof Operations;
export type OperationId = keyof Operations;

type Input<N> = N extends SchemaName ? z.input<Catalogue[N]> : undefined;
type Output<N> = N extends SchemaName ? z.output<Catalogue[N]> : unknown;

/** What the operation's body must be (its component's input type). */
export type BodyOf<K extends OperationId> = Input<Operations[K]['body']>;
/** What the operation answers on success (its component's output type). */
export type ResponseOf<K extends OperationId> = Output<Operations[K]['response']>;

/** The API's types by component name, for callers. */
export type Schema<N extends SchemaName> = z.output<Catalogue[N]>;
export type SchemaInput<N extends SchemaName> = z.input<Catalogue[N]>;
