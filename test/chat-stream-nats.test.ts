/**
 * The chat's event stream over NATS: a gateway replica and the auth service on one nats-server
 * (JetStream for the audit stream), a real token from the auth service, and a stand-in brain on
 * its own NATS connection serving `brain.chat.send` through kit's serveEndpoints with a handler
 * that streams through `caller.stream` (the real chat handler is not this test's subject). The
 * client reads the events while the handler still runs; leaving cancels the handler across NATS;
 * each request has exactly one audit event on the stream.
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { ChatReply } from '@pag/contracts';
import { BrainEndpoints } from '@pag/contracts';
import type { AccountCaller, Subscription } from '../packages/kit/src/mod.ts';
import { createLogger, createMetrics, handle, NatsBus, serveEndpoints } from '../packages/kit/src/mod.ts';
import type { RunningAuth } from '../services/auth/src/mod.ts';
import { AuditLog } from '../services/gateway/test/audit-log.ts';
import type { AuthOnNats, GatewayReplica } from './support/auth-on-nats.ts';
import { startAuthOnNats, startGatewayReplica } from './support/auth-on-nats.ts';

const PUBLIC_URL = 'https://api.example.test';
const logger = createLogger({ service: 'chat-stream-test', level: 'silent' });

let env: AuthOnNats;
let auth: RunningAuth;
let replica: GatewayReplica;
let brainBus: NatsBus;
let served: Subscription[];
let log: AuditLog;
let token: string;
let brain: (caller: AccountCaller, message: string) => Promise<ChatReply>;

const reply = (text: string): ChatReply => ({
  conversationId: 'conv_1',
  reply: text,
  model: 'test-model',
  provider: 'openai-compatible',
  sources: { knowledge: [], memory: [] },
  usage: null,
  createdAt: '2026-11-24T00:00:00.000Z',
});

beforeAll(async () => {
  env = await startAuthOnNats({ publicUrl: PUBLIC_URL, logger });
  auth = env.auth;
  replica = await startGatewayReplica(env, { name: 'gateway', publicUrl: PUBLIC_URL, logger });
  log = await AuditLog.follow(replica.bus);
  brainBus = await NatsBus.connect({ url: env.nats.url, name: 'brain', logger });
  const chat = handle(BrainEndpoints.chatSend, (caller, { body }) => brain(caller, body.message));
  served = await serveEndpoints(
    brainBus,
    { service: 'brain', deps: {}, logger, metrics: createMetrics({ defaultMetrics: false }) },
    [chat],
  );
  const agent = await auth.core.agents.createAgent({
    accountId: env.accountId,
    kind: 'dashboard',
    name: 'Chatty',
    scopes: ['chat'],
  });
  token = (await auth.core.agents.issueToken(agent)).value;
}, 60_000);

afterAll(async () => {
  for (const subscription of served ?? []) await subscription.close();
  await brainBus?.close();
  await log?.[Symbol.asyncDispose]();
  await replica?.close();
  await env?.close();
});

/** Reads server-sent events from a fetch body as they arrive. */
class Events {
  readonly seen: Array<{ event: string; data: unknown }> = [];
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = '';

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Reads until `count` events arrived (or the end); returns them all. */
  async atLeast(count: number): Promise<Array<{ event: string; data: unknown }>> {
    while (this.seen.length < count) {
      const { done, value } = await this.#reader.read();
      if (done) break;
      this.#buffer += value;
      for (let end = this.#buffer.indexOf('\n\n'); end >= 0; end = this.#buffer.indexOf('\n\n')) {
        const [event = '', data = ''] = this.#buffer
          .slice(0, end)
          .split('\n')
          .map((line) => line.slice(line.indexOf(': ') + 2));
        this.#buffer = this.#buffer.slice(end + 2);
        this.seen.push({ event, data: JSON.parse(data) });
      }
    }
    return [...this.seen];
  }
}

function ask(message: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${replica.url}/api/v1/brain/chat`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify({ message }),
    ...(signal === undefined ? {} : { signal }),
  });
}

test('the events reach the client while the brain still works, then done; one audit event', async () => {
  const release = Promise.withResolvers<void>();
  let returned = false;
  brain = async (caller, message) => {
    await caller.stream!.send('start', { conversationId: 'conv_1', model: 'test-model' });
    await caller.stream!.send('delta', { text: message });
    await release.promise;
    await caller.stream!.send('delta', { text: '!' });
    returned = true;
    return reply(`${message}!`);
  };
  const response = await ask('over NATS');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const events = new Events(response.body!);
  expect(await events.atLeast(2)).toEqual([
    { event: 'start', data: { conversationId: 'conv_1', model: 'test-model' } },
    { event: 'delta', data: { text: 'over NATS' } },
  ]);
  expect(returned).toBe(false);
  release.resolve();
  const all = await events.atLeast(4);
  expect(all.slice(2)).toEqual([
    { event: 'delta', data: { text: '!' } },
    { event: 'done', data: reply('over NATS!') },
  ]);
  const recorded = await log.of(response.headers.get('x-request-id') ?? '');
  expect(recorded).toHaveLength(1);
  expect(recorded[0]).toMatchObject({ status: 200, path: '/api/v1/brain/chat', accountId: env.accountId });
});

test("a client that goes away cancels the brain's handler across NATS; still one audit event", async () => {
  const cancelled = Promise.withResolvers<boolean>();
  brain = async (caller) => {
    const stream = caller.stream!;
    await stream.send('start', { conversationId: 'conv_1', model: 'test-model' });
    await new Promise((resolve) => stream.signal.addEventListener('abort', resolve, { once: true }));
    cancelled.resolve(stream.signal.aborted);
    return reply('nobody reads this');
  };
  const client = new AbortController();
  const response = await ask('then leave', client.signal);
  await new Events(response.body!).atLeast(1);
  client.abort();
  await expect(cancelled.promise).resolves.toBe(true);
  // A later request's event is read after anything this one could still have produced.
  const later = await fetch(`${replica.url}/api/v1/`);
  await later.text();
  await log.of(later.headers.get('x-request-id') ?? '');
  const recorded = log.events.filter((event) => event.requestId === response.headers.get('x-request-id'));
  expect(recorded).toHaveLength(1);
  expect(recorded[0]?.status).toBe(200);
});
