/**
 * A stream route (chat) through the whole gateway pipeline: with `Accept: text/event-stream` the
 * brain's events reach a raw HTTP client as server-sent events while the handler still runs, then
 * `done` with the reply; a failure before the first event is the usual JSON error, after it an
 * `error` event; a client that goes away cancels the handler; without the Accept header the route
 * answers JSON as before, within the route's own timeout. Each request is recorded exactly once,
 * and the event stream's head waits until its audit event is stored (the embedded mode's
 * confirmed publish, with a stand-in audit writer that the test can hold).
 *
 * No brain service runs here: the test serves `brain.chat.send` itself, through kit's
 * serveEndpoints, with a handler that streams through `caller.stream`.
 */
import type { IncomingMessage } from 'node:http';
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { ChatReply, RequestAuditEvent } from '@pag/contracts';
import { AppError, AuditEvent, AuditStream, BrainEndpoints, ErrorBody } from '@pag/contracts';
import type { AccountCaller, Subscription } from '@pag/kit';
import { createLogger, createMetrics, handle, serveEndpoints } from '@pag/kit';
import type { TokenGateway } from './start-token-gateway.ts';
import { startTokenGateway } from './start-token-gateway.ts';

const ACCOUNT = '00000000-0000-4000-8000-0000000000c1';
const DISPATCH_TIMEOUT_MS = 300;

interface SseEvent {
  event: string;
  data: unknown;
}

/** The events of one response as they arrive; `atLeast(n)` resolves once n have. */
class EventReader {
  readonly events: SseEvent[] = [];
  /** Everything received, for an answer that is not an event stream. */
  text = '';
  readonly ended: Promise<void>;
  #buffer = '';
  #waiters: Array<() => void> = [];

  constructor(res: IncomingMessage) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.text += chunk;
      if (!String(res.headers['content-type']).startsWith('text/event-stream')) return;
      this.#buffer += chunk;
      for (let end = this.#buffer.indexOf('\n\n'); end >= 0; end = this.#buffer.indexOf('\n\n')) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const field = (name: string) =>
          block
            .split('\n')
            .find((line) => line.startsWith(`${name}: `))
            ?.slice(name.length + 2);
        this.events.push({ event: field('event') ?? '', data: JSON.parse(field('data') ?? 'null') });
      }
      for (const wake of this.#waiters) wake();
    });
    this.ended = new Promise((resolve) => res.on('end', resolve));
  }

  atLeast(count: number): Promise<SseEvent[]> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.events.length < count) return;
        this.#waiters = this.#waiters.filter((wake) => wake !== check);
        resolve([...this.events]);
      };
      this.#waiters.push(check);
      check();
    });
  }
}

interface Opened {
  res: IncomingMessage;
  reader: EventReader;
  /** Closes the connection, as a client that goes away. */
  abort(): void;
}

/** POSTs a chat message with a raw client; `responded` resolves with the head. */
function chat(message: string, accept?: string): { responded: Promise<Opened>; answered(): boolean } {
  let answered = false;
  const body = JSON.stringify({ message });
  const req = request(`${stack.gateway.url}/api/v1/brain/chat`, {
    method: 'POST',
    headers: {
      authorization: 'Bearer chat-token',
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...(accept === undefined ? {} : { accept }),
    },
  });
  const responded = new Promise<Opened>((resolve, reject) => {
    req.on('response', (res) => {
      answered = true;
      resolve({ res, reader: new EventReader(res), abort: () => req.destroy() });
    });
    req.on('error', reject);
  });
  req.end(body);
  return { responded, answered: () => answered };
}

async function jsonOf(reader: EventReader): Promise<unknown> {
  await reader.ended;
  return JSON.parse(reader.text);
}

function deferred<T = void>() {
  return Promise.withResolvers<T>();
}

const reply = (text: string): ChatReply => ({
  conversationId: 'conv_1',
  reply: text,
  model: 'test-model',
  provider: 'openai-compatible',
  sources: { knowledge: [], memory: [] },
  usage: null,
  createdAt: '2026-11-24T00:00:00.000Z',
});

type Brain = (caller: AccountCaller, message: string) => Promise<ChatReply>;

let stack: TokenGateway;
let brain: Brain;
let served: Subscription[];
/** What the stand-in audit writer stored; its acknowledgement waits for `auditHold`. */
const stored: RequestAuditEvent[] = [];
let storedWaiters: Array<() => void> = [];
let auditHold: Promise<void> = Promise.resolve();
let auditArrived: (event: RequestAuditEvent) => Promise<void> = async () => undefined;

beforeAll(async () => {
  stack = await startTokenGateway(
    { DISPATCH_TIMEOUT_MS: String(DISPATCH_TIMEOUT_MS) },
    // As in the embedded mode: the audit event's publish resolves once the writer acknowledged it.
    { confirmedBy: { [AuditStream.name]: AuditStream.consumer } },
  );
  stack.issue('chat-token', 'chat', { sub: ACCOUNT, account_id: ACCOUNT });
  await stack.gateway.bus.consume(AuditStream.name, AuditStream.consumer, async (msg) => {
    const event = AuditEvent.parse(msg.data);
    if (event.kind !== 'request') return;
    await auditArrived(event);
    await auditHold;
    stored.push(event);
    for (const wake of storedWaiters) wake();
  });
  const peer = stack.gateway.bus.peer();
  const logger = createLogger({ service: 'brain', level: 'silent' });
  const metrics = createMetrics({ defaultMetrics: false });
  const chatHandler = handle(BrainEndpoints.chatSend, (caller, { body }) => brain(caller, body.message));
  served = await serveEndpoints(peer, { service: 'brain', deps: {}, logger, metrics }, [chatHandler]);
});

afterAll(async () => {
  for (const subscription of served ?? []) await subscription.close();
  await stack?.[Symbol.asyncDispose]();
});

beforeEach(() => {
  auditHold = Promise.resolve();
  auditArrived = async () => undefined;
});

/** The stored audit events of one request, once a later request's event is stored (stream order). */
async function onlyEventOf(requestId: string): Promise<RequestAuditEvent> {
  const marker = await fetch(`${stack.gateway.url}/api/v1/`);
  const markerId = marker.headers.get('x-request-id');
  await marker.text();
  await new Promise<void>((resolve) => {
    const check = () => {
      if (!stored.some((event) => event.requestId === markerId)) return;
      storedWaiters = storedWaiters.filter((wake) => wake !== check);
      resolve();
    };
    storedWaiters.push(check);
    check();
  });
  const mine = stored.filter((event) => event.requestId === requestId);
  expect(mine).toHaveLength(1);
  return mine[0]!;
}

describe('Accept: text/event-stream', () => {
  test('each event reaches the client as it is sent, before the handler returns; then done with the reply', async () => {
    const release = deferred();
    let returned = false;
    brain = async (caller, message) => {
      const stream = caller.stream!;
      await stream.send('start', { conversationId: 'conv_1', model: 'test-model' });
      await stream.send('delta', { text: `You said: ${message}.` });
      await release.promise;
      await stream.send('delta', { text: ' Bye.' });
      returned = true;
      return reply(`You said: ${message}. Bye.`);
    };
    const { res, reader } = await chat('hi', 'text/event-stream').responded;
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.vary).toContain('Accept');

    const early = await reader.atLeast(2);
    expect(returned).toBe(false);
    expect(early).toEqual([
      { event: 'start', data: { conversationId: 'conv_1', model: 'test-model' } },
      { event: 'delta', data: { text: 'You said: hi.' } },
    ]);
    release.resolve();
    await reader.ended;
    expect(reader.events.slice(2)).toEqual([
      { event: 'delta', data: { text: ' Bye.' } },
      { event: 'done', data: reply('You said: hi. Bye.') },
    ]);
    const event = await onlyEventOf(String(res.headers['x-request-id']));
    expect(event).toMatchObject({
      status: 200,
      decision: 'allowed',
      path: '/api/v1/brain/chat',
      bytesOut: null,
    });
  });

  test('the head waits until the audit event is stored; nothing is sent before', async () => {
    const held = deferred();
    const arrived = deferred<boolean>();
    const sentFirst = deferred();
    auditHold = held.promise;
    let request: ReturnType<typeof chat> | undefined;
    auditArrived = async (event) => {
      if (event.path !== '/api/v1/brain/chat') return;
      // The handler has handed its first event to the bus; a loopback round trip later the
      // client still has no answer at all.
      await sentFirst.promise;
      await fetch(`${stack.auth.url}/.well-known/openid-configuration`).then((r) => r.text());
      arrived.resolve(request?.answered() ?? true);
    };
    brain = async (caller) => {
      await caller.stream!.send('start', { conversationId: 'conv_1', model: 'test-model' });
      sentFirst.resolve();
      return reply('ok');
    };
    request = chat('hold on', 'text/event-stream');
    expect(await arrived.promise).toBe(false);
    held.resolve();
    const { res, reader } = await request.responded;
    await reader.ended;
    expect(reader.events.map((event) => event.event)).toEqual(['start', 'done']);
    await onlyEventOf(String(res.headers['x-request-id']));
  });

  test('a failure before the first event is the usual JSON error with its status', async () => {
    brain = async () => {
      throw new AppError('NOT_FOUND', 'No conversation conv_9 of yours.');
    };
    const { res, reader } = await chat('continue', 'text/event-stream').responded;
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/json');
    const { error } = ErrorBody.parse(await jsonOf(reader));
    expect(error).toMatchObject({ code: 'NOT_FOUND', message: 'No conversation conv_9 of yours.' });
    expect(await onlyEventOf(error.requestId)).toMatchObject({ status: 404, reason: 'NOT_FOUND' });
  });

  test('a failure after the first event is an error event with the error body, then the end', async () => {
    brain = async (caller) => {
      await caller.stream!.send('start', { conversationId: 'conv_1', model: 'test-model' });
      throw new AppError('UPSTREAM_ERROR', 'The model provider answered 500.', {
        hint: 'Retry later.',
        expose: true,
      });
    };
    const { res, reader } = await chat('fail', 'text/event-stream').responded;
    await reader.ended;
    const requestId = String(res.headers['x-request-id']);
    expect(reader.events).toEqual([
      { event: 'start', data: { conversationId: 'conv_1', model: 'test-model' } },
      {
        event: 'error',
        data: {
          error: {
            code: 'UPSTREAM_ERROR',
            message: 'The model provider answered 500.',
            hint: 'Retry later.',
            requestId,
          },
        },
      },
    ]);
    expect(await onlyEventOf(requestId)).toMatchObject({ status: 200 });
  });

  test('a client that goes away cancels the handler; the request is still recorded once', async () => {
    const cancelled = deferred<string | undefined>();
    brain = async (caller) => {
      const stream = caller.stream!;
      await stream.send('start', { conversationId: 'conv_1', model: 'test-model' });
      await new Promise((resolve) => stream.signal.addEventListener('abort', resolve, { once: true }));
      const late = stream.send('delta', { text: 'late' });
      cancelled.resolve(
        await late.then(
          () => 'sent',
          (error: AppError) => error.code,
        ),
      );
      return reply('never sent');
    };
    const { res, reader, abort } = await chat('leave', 'text/event-stream').responded;
    await reader.atLeast(1);
    abort();
    await expect(cancelled.promise).resolves.toBe('CLIENT_CLOSED_REQUEST');
    expect(await onlyEventOf(String(res.headers['x-request-id']))).toMatchObject({ status: 200 });
  });
});

test('a stream may outlast REQUEST_TIMEOUT_MS, which bounds receiving the request only', async () => {
  // 2 s (was 500 ms): the request itself must still arrive within it, which a loaded machine's
  // first request to a fresh gateway on loopback may not do in 500 ms (a 408, not the stream).
  const strict = await stack.startAnother({ REQUEST_TIMEOUT_MS: '2000', HEADERS_TIMEOUT_MS: '2000' });
  const logger = createLogger({ service: 'brain', level: 'silent' });
  const metrics = createMetrics({ defaultMetrics: false });
  const slow = handle(BrainEndpoints.chatSend, async (caller) => {
    await caller.stream!.send('start', { conversationId: 'conv_1', model: 'test-model' });
    // Past the request timeout and node:http's next check of it (every second).
    await new Promise((resolve) => setTimeout(resolve, 3_600));
    await caller.stream!.send('delta', { text: 'still here' });
    return reply('still here');
  });
  const subscriptions = await serveEndpoints(
    strict.bus.peer(),
    { service: 'brain', deps: {}, logger, metrics },
    [slow],
  );
  try {
    const response = await fetch(`${strict.url}/api/v1/brain/chat`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer chat-token',
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ message: 'wait' }),
    });
    const text = await response.text();
    expect(text).toContain('event: delta\ndata: {"text":"still here"}\n\n');
    expect(text).toContain('event: done\n');
  } finally {
    for (const subscription of subscriptions) await subscription.close();
  }
});

describe('without Accept: text/event-stream', () => {
  test("JSON as before, the handler has no stream, and the route's own timeout applies", async () => {
    brain = async (caller, message) => {
      expect(caller.stream).toBeNull();
      // Longer than DISPATCH_TIMEOUT_MS, well within the chat route's 120 s.
      await new Promise((resolve) => setTimeout(resolve, DISPATCH_TIMEOUT_MS * 2));
      return reply(message);
    };
    const { res, reader } = await chat('slow but fine', 'application/json').responded;
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(await jsonOf(reader)).toEqual(reply('slow but fine'));
    expect(await onlyEventOf(String(res.headers['x-request-id']))).toMatchObject({ status: 200 });
  });

  test('text/event-stream refused with q=0 is not asked for', async () => {
    brain = async (caller, message) => reply(caller.stream === null ? message : 'streamed');
    const { reader } = await chat('plain', 'text/event-stream;q=0, application/json').responded;
    expect(await jsonOf(reader)).toEqual(reply('plain'));
  });
});
