/**
 * serveEndpoints and requestEndpoint on the in-memory bus with real endpoints of the contracts:
 * the caller is read and checked before any handler runs (401, 400, 403), the message is judged
 * once, replicas share a subject, each request is timed and logged with its request id, a failed
 * start closes what it opened, an asker never receives a reply that breaks the contract, and a
 * bearer route's handler streams through caller.stream when the asker asked for a stream.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import type { AnyEndpoint } from '@pag/contracts';
import { AppError, AuthEndpoints, BrainEndpoints, MessageHeaders } from '@pag/contracts';
import { createLogger } from '../log/logger.ts';
import { createMetrics } from '../ops/metrics.ts';
import { rejectionOf } from './bus-test-helpers.ts';
import { MemoryBus } from './memory-bus.ts';
import { InvalidReplyError, requestEndpoint, requestEndpointStream } from './request-endpoint.ts';
import type { EndpointHandler } from './serve-endpoints.ts';
import { handle, serveEndpoints } from './serve-endpoints.ts';
import type { Bus, Subscription } from './types.ts';

interface Deps {
  notes: string[];
}

const knowledge = handle(BrainEndpoints.knowledgeList, (caller, _input, _deps: Deps) => ({
  documents: [
    {
      id: 'doc_1',
      title: caller.accountId,
      kind: 'notes',
      content: caller.scopes.join(' '),
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    },
  ],
  nextCursor: null,
}));
const memory = handle(BrainEndpoints.memoryCreate, (caller, { body }, deps: Deps) => {
  deps.notes.push(body.content);
  caller.logger.info({ memoryId: 'mem_1' }, 'memory written');
  return {
    id: 'mem_1',
    content: body.content,
    agentId: caller.agentId,
    createdAt: '2026-01-01T00:00:00.000Z',
  };
});
const chat = handle(BrainEndpoints.chatSend, async (caller, { body }, _deps: Deps) => {
  // Streams word by word when the requester asked for a stream.
  if (caller.stream !== null) {
    await caller.stream.send('start', { conversationId: 'conv_1', model: 'offline' });
    for (const text of body.message.split(' ')) await caller.stream.send('delta', { text });
  }
  return chatReply(caller.stream === null ? body.message : 'streamed');
});
const chatReply = (reply: string) => ({
  conversationId: 'conv_1',
  reply,
  model: 'offline',
  provider: 'offline' as const,
  sources: { knowledge: [], memory: [] },
  usage: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});
const handlers: EndpointHandler<AnyEndpoint, Deps>[] = [knowledge, memory, chat];

let bus: MemoryBus;
let asker: MemoryBus;
let lines: Record<string, unknown>[];
let metrics: ReturnType<typeof createMetrics>;
let deps: Deps;
let subscriptions: Subscription[];

beforeEach(async () => {
  bus = new MemoryBus();
  asker = bus.peer();
  lines = [];
  const destination = new PassThrough();
  destination.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line));
  });
  metrics = createMetrics({ defaultMetrics: false });
  deps = { notes: [] };
  const logger = createLogger({ service: 'brain', level: 'info', destination });
  subscriptions = await serveEndpoints(bus, { service: 'brain', deps, logger, metrics }, handlers);
});
afterEach(async () => {
  await asker.close();
  await bus.close();
});

const account = randomUUID();
const headersOf = (fields: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Record<
    string,
    string
  >;
const ask = (subject: string, data: unknown, fields: Record<string, string | undefined> = {}) =>
  asker.request(subject, data, {
    timeoutMs: 5_000,
    headers: headersOf({
      [MessageHeaders.requestId]: 'req-1',
      [MessageHeaders.accountId]: account,
      [MessageHeaders.scopes]: 'knowledge',
      ...fields,
    }),
  });
const empty = { params: {}, query: {}, body: null };

describe('serveEndpoints: the caller', () => {
  test('a bearer route answers for the account in the headers, with its scopes', async () => {
    expect(await ask(BrainEndpoints.knowledgeList.subject, empty)).toEqual({
      documents: [expect.objectContaining({ title: account, content: 'knowledge' })],
      nextCursor: null,
    });
  });

  test.each([
    ['missing', undefined],
    ['not a UUID', 'acc-1'],
  ])('an account header %s is 401 AUTHENTICATION_REQUIRED', async (_label, value) => {
    const error = await rejectionOf(
      ask(BrainEndpoints.knowledgeList.subject, empty, { 'pag-account-id': value }),
    );
    expect(error).toMatchObject({ code: 'AUTHENTICATION_REQUIRED', status: 401 });
    expect((error as AppError).message).toContain(MessageHeaders.accountId);
  });

  test('an agent header that is not an agent id is 400 naming it', async () => {
    const error = await rejectionOf(
      ask(BrainEndpoints.knowledgeList.subject, empty, { 'pag-agent-id': 'a b/c' }),
    );
    expect(error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('pag-agent-id'),
    });
  });

  test("the route's scope is checked again: 403 without it, before the body is judged", async () => {
    const withoutScope = { 'pag-scopes': 'chat' };
    expect(await rejectionOf(ask(BrainEndpoints.knowledgeList.subject, empty, withoutScope))).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
      message: expect.stringContaining('knowledge'),
    });
    // chat needs the scope chat and a body: without the scope, the bad body is not even judged.
    const badBody = { ...empty, body: { message: 42 } };
    expect(await rejectionOf(ask(BrainEndpoints.chatSend.subject, badBody, {}))).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      message: expect.stringContaining('chat'),
    });
    expect(await rejectionOf(ask(BrainEndpoints.chatSend.subject, badBody, withoutScope))).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('body.message'),
    });
  });
});

describe('serveEndpoints: the message', () => {
  test('one INVALID_REQUEST names every field that failed, the handler never runs', async () => {
    const error = await rejectionOf(
      ask(BrainEndpoints.memoryCreate.subject, { params: 'x', query: {}, body: { content: '' } }),
    );
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect((error as AppError).message).toMatch(
      /^Invalid brain\.memory\.create request: params: .+; body\.content: .+\.$/,
    );
    expect(deps.notes).toEqual([]);
  });

  test('the handler gets the validated body and the service deps', async () => {
    await ask(BrainEndpoints.memoryCreate.subject, { ...empty, body: { content: 'noted' } });
    expect(deps.notes).toEqual(['noted']);
  });
});

describe('serveEndpoints: around each request', () => {
  test("the handler's log lines carry the request id and the subject", async () => {
    await ask(BrainEndpoints.memoryCreate.subject, { ...empty, body: { content: 'noted' } });
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'memory written', requestId: 'req-1', subject: 'brain.memory.create' }),
    );
  });

  test('each request is timed by service, subject and outcome', async () => {
    await ask(BrainEndpoints.knowledgeList.subject, empty);
    await rejectionOf(ask(BrainEndpoints.knowledgeList.subject, empty, { 'pag-scopes': '' }));
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'bus_request_duration_seconds_count{service="brain",subject="brain.knowledge.list",code="ok"} 1',
    );
    expect(text).toContain(
      'bus_request_duration_seconds_count{service="brain",subject="brain.knowledge.list",code="INSUFFICIENT_SCOPE"} 1',
    );
  });

  test('replicas share a subject in the queue group of the service: each request is answered once', async () => {
    const replica = bus.peer();
    const seen: string[] = [];
    const logger = createLogger({ service: 'brain', level: 'silent' });
    const replicaDeps = { notes: seen };
    const more = await serveEndpoints(
      replica,
      { service: 'brain', deps: replicaDeps, logger, metrics },
      handlers,
    );
    for (let i = 0; i < 20; i++)
      await ask(BrainEndpoints.memoryCreate.subject, { ...empty, body: { content: `${i}` } });
    expect(deps.notes.length + seen.length).toBe(20);
    await Promise.all(more.map((subscription) => subscription.close()));
    await replica.close();
  });

  test('a failed start closes the subscriptions already made', async () => {
    const closed: string[] = [];
    let calls = 0;
    const failing: Bus = Object.create(bus, {
      handle: {
        value: async (subject: string) => {
          calls += 1;
          if (calls === 2) throw new Error('subscription refused');
          return { close: async () => void closed.push(subject) };
        },
      },
    });
    const logger = createLogger({ service: 'brain', level: 'silent' });
    await expect(
      serveEndpoints(failing, { service: 'brain', deps, logger, metrics }, handlers),
    ).rejects.toThrow('subscription refused');
    expect(closed).toEqual([BrainEndpoints.knowledgeList.subject]);
  });

  test("a service never serves another service's endpoint", async () => {
    const logger = createLogger({ service: 'brain', level: 'silent' });
    const auth = handle(AuthEndpoints.accountGet, () => {
      throw new AppError('NOT_FOUND', 'none');
    });
    await expect(
      serveEndpoints(bus, { service: 'brain', deps, logger, metrics }, [auth] as EndpointHandler<
        AnyEndpoint,
        Deps
      >[]),
    ).rejects.toThrow('auth answers it');
    expect(subscriptions).toHaveLength(3);
  });
});

describe('serveEndpoints and requestEndpointStream: a streamed reply', () => {
  const chatHeaders = { [MessageHeaders.accountId]: account, [MessageHeaders.scopes]: 'chat' };
  const chatMessage = { ...empty, body: { message: 'hello streamed world' } };

  test("the handler's caller.stream carries its events before the validated reply, timed once", async () => {
    const parts: unknown[] = [];
    for await (const part of requestEndpointStream(asker, BrainEndpoints.chatSend, chatMessage, {
      timeoutMs: 5_000,
      headers: chatHeaders,
    })) {
      parts.push(part);
    }
    expect(parts).toEqual([
      { kind: 'event', event: 'start', data: { conversationId: 'conv_1', model: 'offline' } },
      { kind: 'event', event: 'delta', data: { text: 'hello' } },
      { kind: 'event', event: 'delta', data: { text: 'streamed' } },
      { kind: 'event', event: 'delta', data: { text: 'world' } },
      { kind: 'reply', data: expect.objectContaining({ reply: 'streamed', conversationId: 'conv_1' }) },
    ]);
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'bus_request_duration_seconds_count{service="brain",subject="brain.chat.send",code="ok"} 1',
    );
  });

  test('a plain request to the same endpoint gives the handler no stream', async () => {
    const reply = await requestEndpoint(asker, BrainEndpoints.chatSend, chatMessage, {
      timeoutMs: 5_000,
      headers: chatHeaders,
    });
    expect(reply.reply).toBe('hello streamed world');
  });

  test('the checks run before the stream starts: a missing scope is the first read failing with 403', async () => {
    const parts = requestEndpointStream(asker, BrainEndpoints.chatSend, chatMessage, {
      timeoutMs: 5_000,
      headers: { ...chatHeaders, [MessageHeaders.scopes]: 'knowledge' },
    });
    const error = await rejectionOf(parts.next());
    expect(error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
  });

  test('a final reply that breaks the schema is 502 after the events', async () => {
    const sub = await bus.handle(AuthEndpoints.accountGet.subject, async (msg) => {
      await msg.stream?.send('progress', 1);
      return { accountId: 'x' };
    });
    const parts: unknown[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const part of requestEndpointStream(
          asker,
          AuthEndpoints.accountGet,
          { accountId: account },
          { timeoutMs: 5_000 },
        )) {
          parts.push(part);
        }
      })(),
    );
    expect(parts).toEqual([{ kind: 'event', event: 'progress', data: 1 }]);
    expect(error).toBeInstanceOf(InvalidReplyError);
    await sub.close();
  });
});

describe('requestEndpoint', () => {
  test('the reply is validated: a reply that breaks the schema is 502 naming the service', async () => {
    const sub = await bus.handle(AuthEndpoints.accountGet.subject, () => ({ accountId: 'x' }));
    const error = await rejectionOf(
      requestEndpoint(asker, AuthEndpoints.accountGet, { accountId: account }, { timeoutMs: 5_000 }),
    );
    expect(error).toBeInstanceOf(InvalidReplyError);
    expect(error).toMatchObject({
      code: 'UPSTREAM_ERROR',
      status: 502,
      message: expect.stringContaining('auth'),
    });
    await sub.close();
  });

  test('a fitting reply comes back typed; the service errors come back as they were', async () => {
    const reply = await requestEndpoint(asker, BrainEndpoints.knowledgeList, empty, {
      timeoutMs: 5_000,
      headers: { [MessageHeaders.accountId]: account, [MessageHeaders.scopes]: 'knowledge' },
    });
    expect(reply.documents[0]?.title).toBe(account);
    const refused = await rejectionOf(
      requestEndpoint(asker, BrainEndpoints.knowledgeList, empty, { timeoutMs: 5_000 }),
    );
    expect(refused).toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
  });
});
