/**
 * The agent's client: one method per API operation it needs, each sending the method and path of
 * its row in the operation table (operations.ts) through the transport (redirects refused,
 * retries and renewal built in), typed by that row's component schemas.
 */
import { PagError, SDK_CODES } from './errors.ts';
import { type BodyOf, type HttpMethod, type OperationId, Operations, type ResponseOf } from './operations.ts';
import { serverSentEvents } from './sse.ts';
import { jsonOf, type SendOptions, type Transport } from './transport.ts';

interface CallOptions<K extends OperationId> {
  params?: Record<string, string>;
  query?: SendOptions['query'];
  body?: BodyOf<K>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export type ChatEvent =
  | { event: 'start'; data: { conversationId: string; model: string } }
  | { event: 'delta'; data: { text: string } }
  | { event: 'done'; data: ResponseOf<'chat'> };

export interface KnowledgeSearchOptions {
  limit?: number;
  cursor?: string;
}

/** A connected service's answer, passed through as the gateway got it. */
export interface ServiceResponse {
  status: number;
  headers: Headers;
  /** The body, parsed when it is JSON, else its text. */
  body: unknown;
}

/** Fills `{name}` parameters of an OpenAPI path template. */
function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name} for ${template}`);
    return name === 'path' ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
  });
}

/** A third party's body said to be JSON: parsed, or its text when it is not JSON after all. */
function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const SERVICE_CALLS: Record<HttpMethod, OperationId> = {
  GET: 'callServiceGet',
  POST: 'callServicePost',
  PUT: 'callServicePut',
  PATCH: 'callServicePatch',
  DELETE: 'callServiceDelete',
};

export class PagClient {
  readonly transport: Transport;

  constructor(transport: Transport) {
    this.transport = transport;
  }

  /** The base URL the client talks to, without a trailing slash. */
  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** The raw answer of an operation of the table (2xx only; anything else throws PagError). */
  async send<K extends OperationId>(id: K, options: CallOptions<K> = {}): Promise<Response> {
    const operation = Operations[id];
    return this.transport.send({
      method: operation.method,
      path: fillPath(operation.path, options.params),
      query: options.query,
      json: options.body,
      headers: options.headers,
      signal: options.signal,
    });
  }

  async call<K extends OperationId>(id: K, options: CallOptions<K> = {}): Promise<ResponseOf<K>> {
    return jsonOf<ResponseOf<K>>(await this.send(id, options));
  }

  /** The calling token's scopes, agent and the endpoints it may call. */
  capabilities(): Promise<ResponseOf<'capabilities'>> {
    return this.call('capabilities');
  }

  /** Persona, identity, memory, connected services and endpoints: call this first. */
  context(): Promise<ResponseOf<'context'>> {
    return this.call('context');
  }

  readonly memory = {
    /** Writes a long-term memory note; it appears in the context from then on. */
    write: (note: string | BodyOf<'writeMemory'>): Promise<ResponseOf<'writeMemory'>> =>
      this.call('writeMemory', { body: typeof note === 'string' ? { content: note } : note }),
    /** Deletes a note this agent wrote. */
    delete: (id: string): Promise<ResponseOf<'deleteMemory'>> =>
      this.call('deleteMemory', { params: { id } }),
    /** The notes the context carries, newest first (null when the brain is unavailable). */
    list: async (): Promise<ResponseOf<'context'>['memory']> => (await this.context()).memory,
  };

  readonly knowledge = {
    /** Full-text search of the owner's knowledge base (scope knowledge). */
    search: (q: string, options: KnowledgeSearchOptions = {}): Promise<ResponseOf<'searchKnowledge'>> =>
      this.call('searchKnowledge', { query: { q, limit: options.limit, cursor: options.cursor } }),
  };

  /** One chat message to the owner's brain (scope chat); send back `conversationId` to continue. */
  chat(request: BodyOf<'chat'>): Promise<ResponseOf<'chat'>> {
    return this.call('chat', { body: request });
  }

  /** The same, streamed: `start`, then `delta`s as the text comes, then `done` with the whole reply. */
  async *chatStream(request: BodyOf<'chat'>, signal?: AbortSignal): AsyncGenerator<ChatEvent> {
    const response = await this.send('chat', {
      body: request,
      headers: { accept: 'text/event-stream' },
      signal,
    });
    if (
      response.body === null ||
      !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    )
      throw new PagError({
        code: SDK_CODES.UNEXPECTED_RESPONSE,
        message: `The chat answered ${response.headers.get('content-type')} instead of an event stream.`,
        status: response.status,
      });
    for await (const { event, data } of serverSentEvents(response.body)) {
      if (event === 'error') {
        const { error } = data as {
          error: { code: string; message: string; hint?: string; requestId?: string };
        };
        throw new PagError({ ...error, status: response.status });
      }
      yield { event, data } as ChatEvent;
      if (event === 'done') return;
    }
    throw new PagError({
      code: SDK_CODES.STREAM_INCOMPLETE,
      message: 'The chat stream ended before its done event.',
    });
  }

  readonly services = {
    /** The owner's connected services this token may call. */
    list: (): Promise<ResponseOf<'listServices'>> => this.call('listServices'),
    /**
     * A request to a connected service through the gateway's proxy, with the owner's stored
     * credentials (scope services:<name>:read or :write). `path` is the service's own path.
     */
    call: async (
      service: string,
      method: HttpMethod,
      path: string,
      body?: unknown,
    ): Promise<ServiceResponse> => {
      const [pathOnly = '', search = ''] = path.replace(/^\/+/, '').split('?', 2);
      const response = await this.transport.send({
        method: Operations[SERVICE_CALLS[method]].method,
        path: `${fillPath(Operations[SERVICE_CALLS[method]].path, { service, path: pathOnly })}${search === '' ? '' : `?${search}`}`,
        json: body,
      });
      const text = await response.text();
      const json = (response.headers.get('content-type') ?? '').includes('json') && text !== '';
      return { status: response.status, headers: response.headers, body: json ? parseOrText(text) : text };
    },
  };

  readonly triggers = {
    list: (): Promise<ResponseOf<'listTriggers'>> => this.call('listTriggers'),
    get: (id: string): Promise<ResponseOf<'getTrigger'>> => this.call('getTrigger', { params: { id } }),
    /** Schedules an automation (Pro or Heavy plan; scope chat and each listed service's read). */
    create: (trigger: BodyOf<'createTrigger'>): Promise<ResponseOf<'createTrigger'>> =>
      this.call('createTrigger', { body: trigger }),
    /** Runs it now; the run's outcome is in `runs`. */
    run: (id: string): Promise<ResponseOf<'runTrigger'>> => this.call('runTrigger', { params: { id } }),
    runs: (id: string): Promise<ResponseOf<'listTriggerRuns'>> =>
      this.call('listTriggerRuns', { params: { id } }),
  };
}
