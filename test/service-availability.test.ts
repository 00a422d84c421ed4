/**
 * Honest documents over real NATS (docs/adr/0062): the auth service and a gateway replica on one
 * nats-server, and a brain instance that announces itself as every service does (kit's
 * announcePresence, what runService and the embedded stack run) beside serving its endpoints
 * (a stand-in chat and context; the real brain's handlers are not this test's subject). While it
 * runs, the token's capabilities, its context and the discovery index show the brain's endpoints
 * available; once it stopped they say `available: false` with the reason and a call answers 503
 * with Retry-After; started again, it is available again.
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import { afterAll, afterEach, beforeAll, expect, test } from '@jest/globals';
import type { ChatReply, EndpointAccess } from '@pag/contracts';
import { BrainEndpoints, DiscoveryIndex, ErrorBody, GatewayContext, TokenCapabilities } from '@pag/contracts';
import {
  announcePresence,
  createLogger,
  createMetrics,
  handle,
  NatsBus,
  serveEndpoints,
} from '../packages/kit/src/mod.ts';
import { eventually } from '../packages/kit/src/testing/mod.ts';
import { NOT_RUNNING_RETRY_AFTER_SECONDS } from '../services/gateway/src/pipeline/dispatch.ts';
import type { AuthOnNats, GatewayReplica } from './support/auth-on-nats.ts';
import { startAuthOnNats, startGatewayReplica } from './support/auth-on-nats.ts';

const PUBLIC_URL = 'https://api.example.test';
const logger = createLogger({ service: 'availability-test', level: 'silent' });

let env: AuthOnNats;
let replica: GatewayReplica;
let goodbyeAuth: () => Promise<void>;
let token: string;

const chatReply: ChatReply = {
  conversationId: 'conv_1',
  reply: 'Hello.',
  model: 'test-model',
  provider: 'openai-compatible',
  sources: { knowledge: [], memory: [] },
  usage: null,
  createdAt: '2026-11-24T00:00:00.000Z',
};

/** A brain instance: its endpoints served and its presence announced, as a started service has. */
async function startBrain(): Promise<() => Promise<void>> {
  const bus = await NatsBus.connect({ url: env.nats.url, name: 'brain', logger });
  const served = await serveEndpoints(
    bus,
    { service: 'brain', deps: {}, logger, metrics: createMetrics({ defaultMetrics: false }) },
    [
      handle(BrainEndpoints.chatSend, () => chatReply),
      handle(BrainEndpoints.contextGet, () => ({
        persona: null,
        user: { name: 'Alice', email: null, timezone: null, locale: null, summary: null },
        memoryJson: '[]',
        memoryVersion: '0',
        memoryCount: 0,
      })),
    ],
  );
  const goodbye = await announcePresence('brain', { bus, logger });
  return async () => {
    await goodbye();
    for (const subscription of served) await subscription.close();
    await bus.close();
  };
}

beforeAll(async () => {
  env = await startAuthOnNats({ publicUrl: PUBLIC_URL, logger });
  goodbyeAuth = await announcePresence('auth', { bus: env.authBus, logger });
  replica = await startGatewayReplica(env, { name: 'gateway', publicUrl: PUBLIC_URL, logger });
  const agent = await env.auth.core.agents.createAgent({
    accountId: env.accountId,
    kind: 'dashboard',
    name: 'Curious',
    scopes: ['chat', 'knowledge'],
  });
  token = (await env.auth.core.agents.issueToken(agent)).value;
}, 60_000);

afterAll(async () => {
  await replica?.close();
  await goodbyeAuth?.();
  await env?.close();
});

async function get(path: string): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(`${replica.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

async function chat(): Promise<Response> {
  return fetch(`${replica.url}/api/v1/brain/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ message: 'Hello?' }),
  });
}

/** The MCP `chat` tool (stateless Streamable HTTP, one JSON-RPC call): its refusal, parsed. */
async function mcpChat(): Promise<unknown> {
  const response = await fetch(`${replica.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'chat', arguments: { message: 'Hello?' } },
    }),
  });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as {
    result: { isError?: boolean; content: { type: string; text: string }[] };
  };
  expect(answer.result.isError).toBe(true);
  return JSON.parse(answer.result.content[0]?.text ?? 'null');
}

const byId = (endpoints: EndpointAccess[], id: string) => endpoints.find((endpoint) => endpoint.id === id);

/** What each document says of the chat now. */
async function chatAsListed() {
  const capabilities = TokenCapabilities.parse((await get('/api/v1/tokens/me/capabilities')).body);
  const context = GatewayContext.parse((await get('/api/v1/gateway/context')).body);
  const index = DiscoveryIndex.parse((await get('/api/v1/')).body);
  return {
    capabilities: byId(capabilities.endpoints, 'chat'),
    context: byId(context.endpoints, 'chat'),
    index: index.endpoints.chat,
    listed: capabilities.endpoints.map((endpoint) => endpoint.id),
  };
}

/** The brain instance running now, if any: stopped by the test, or after it. */
let stopBrain: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stopBrain?.();
  stopBrain = undefined;
});

test('a stopped service shows unavailable with the reason and answers 503 with Retry-After; started again, it is back', async () => {
  stopBrain = await startBrain();
  const running = await eventually(
    async () => {
      const listed = await chatAsListed();
      expect(listed.capabilities?.available).toBe(true);
      return listed;
    },
    { what: 'the running brain listed as available' },
  );
  expect(running.context).toMatchObject({ available: true });
  expect(running.index).toEqual({ endpoint: 'POST /api/v1/brain/chat', available: true });
  // Only what the token may call: nothing of the connected services for a chat and knowledge token.
  expect(running.listed).toContain('knowledgeBase');
  expect(running.listed).not.toContain('proxyPost');
  expect((await chat()).status).toBe(200);

  await stopBrain();
  stopBrain = undefined;
  const reason = 'The brain service is not running.';
  const stopped = await eventually(
    async () => {
      const listed = await chatAsListed();
      expect(listed.capabilities).toMatchObject({ available: false, reason });
      return listed;
    },
    { what: 'the stopped brain listed as unavailable' },
  );
  expect(stopped.context).toMatchObject({ available: false, reason });
  expect(stopped.index).toEqual({ endpoint: 'POST /api/v1/brain/chat', available: false, reason });
  const refused = await chat();
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe(String(NOT_RUNNING_RETRY_AFTER_SECONDS));
  expect(ErrorBody.parse(await refused.json()).error).toMatchObject({
    code: 'SERVICE_UNAVAILABLE',
    message: reason,
  });
  // The MCP tool of the same endpoint is refused the same way, with the wait.
  expect(await mcpChat()).toMatchObject({
    status: 503,
    retryAfter: NOT_RUNNING_RETRY_AFTER_SECONDS,
    error: { code: 'SERVICE_UNAVAILABLE', message: reason },
  });
  // The context still answers, naming the parts the brain would have given.
  const context = GatewayContext.parse((await get('/api/v1/gateway/context')).body);
  expect(context.unavailable.map((part) => part.part)).toEqual(['persona', 'user', 'memory', 'services']);

  stopBrain = await startBrain();
  await eventually(
    async () => expect((await chatAsListed()).capabilities).toMatchObject({ available: true }),
    { what: 'the restarted brain listed as available' },
  );
  expect((await chat()).status).toBe(200);
});
