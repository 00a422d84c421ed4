/**
 * A trigger run's service calls end to end on one broker: the brain (brain.prompt.run, its model
 * a local OpenAI-compatible server) asks the real proxy service over proxy.calls.forward, which
 * calls a stand-in connected service on loopback with the owner's credential. What the agent's
 * scopes allow reaches the service and its answer reaches the model; a write beyond them is
 * refused by the proxy, never reaches the service, and the model is told why.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import type { PromptRunRequest } from '@pag/contracts';
import { BrainServiceEndpoints } from '@pag/contracts';
import { applyMigrations, createLogger, createMetrics, requestEndpoint } from '../packages/kit/src/mod.ts';
import {
  FakeAuthServer,
  TEST_GATEWAY_SECRET,
  TEST_INTROSPECTION_CLIENT,
  TEST_TOKEN_TAG_KEY,
} from '../packages/kit/src/testing/mod.ts';
import { callTools, FakeLlm, streamReply } from '../services/brain/test/support/fake-llm.ts';
import type { TestBrain } from '../services/brain/test/support/start-test-brain.ts';
import { startTestBrain } from '../services/brain/test/support/start-test-brain.ts';
import type { ProxyStore, RunningProxy } from '../services/proxy/src/mod.ts';
import { openProxyStore, proxyService, VaultKeyRing } from '../services/proxy/src/mod.ts';
import { FakeUpstream } from '../services/proxy/test/support/fake-upstream.ts';

const SECRET = 'ghp_triggerRunOwnerSecret';
const id = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;
const owner = randomUUID();
const AGENT = id('ag');

let llm: FakeLlm;
let upstream: FakeUpstream;
let auth: FakeAuthServer;
let brain: TestBrain;
let proxy: RunningProxy;
let operator: ProxyStore;

beforeAll(async () => {
  llm = await FakeLlm.start();
  upstream = await FakeUpstream.start();
  auth = await FakeAuthServer.start();
  brain = await startTestBrain({ CHAT_BASE_URL: llm.url, CHAT_MODEL: 'run-model', CHAT_MAX_RETRIES: '0' });
  brain.auth.accounts.set(owner, {
    accountId: owner,
    email: 'runs.end-to-end@example.com',
    plan: 'pro',
    createdAt: new Date().toISOString(),
  });
  // The proxy on the brain's broker and database server (its own schema), as in a deployment.
  const databaseUrl = brain.postgres.url;
  await applyMigrations({ databaseUrl, ...proxyService.database });
  const vaultKey = randomBytes(32);
  const nats = brain.broker.natsServer;
  const config = proxyService.config.parse({
    HOST: '127.0.0.1',
    PORT: '0',
    OPS_PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: databaseUrl,
    ...(nats === undefined ? {} : { NATS_URL: nats.url }),
    PUBLIC_URL: 'http://gateway.test',
    VAULT_ENCRYPTION_KEY: vaultKey.toString('base64'),
    AUTH_URL: auth.url,
    INTROSPECTION_CLIENT_ID: TEST_INTROSPECTION_CLIENT.id,
    INTROSPECTION_CLIENT_SECRET: TEST_INTROSPECTION_CLIENT.secret,
    GATEWAY_SECRET: TEST_GATEWAY_SECRET,
    TOKEN_TAG_KEYS: TEST_TOKEN_TAG_KEY,
    CONNECTOR_BASE_URLS: JSON.stringify({ github: `${upstream.url}/gh` }),
  });
  proxy = await proxyService.start({
    config,
    bus: await brain.broker.connect('proxy'),
    logger: createLogger({ service: 'proxy', level: 'silent' }),
    metrics: createMetrics({ defaultMetrics: false }),
  });
  operator = openProxyStore({ databaseUrl, keyRing: VaultKeyRing.single(vaultKey) });
  await operator.storeApiKeyConnection({ accountId: owner, service: 'github', label: 'main', value: SECRET });
}, 90_000);

afterAll(async () => {
  await operator?.close();
  await proxy?.close();
  await brain?.close();
  await auth?.[Symbol.asyncDispose]();
  await upstream?.[Symbol.asyncDispose]();
  await llm?.close();
});

beforeEach(() => {
  llm.requests.length = 0;
  upstream.arrivals.length = 0;
});

function run(fields: Partial<PromptRunRequest> = {}) {
  return requestEndpoint(
    brain.bus,
    BrainServiceEndpoints.promptRun,
    {
      accountId: owner,
      agentId: AGENT,
      clientId: 'client-of-the-run',
      scopes: ['chat', 'services:github:read'],
      triggerId: id('trg'),
      runId: id('run'),
      prompt: 'List my GitHub notifications.',
      services: ['github'],
      saveOutputToMemory: false,
      ...fields,
    },
    { timeoutMs: 30_000 },
  );
}

const toolAnswers = () =>
  (llm.requests.at(-1)?.body.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((m) => m.content);

test("a read the agent's scopes allow reaches the service through the proxy, and its answer reaches the model", async () => {
  llm.script(
    callTools([
      { name: 'call_service', arguments: { service: 'github', method: 'GET', path: 'notifications' } },
    ]),
    streamReply(['You have one notification.']),
  );
  const result = await run();
  expect(upstream.arrivals.map((arrival) => [arrival.method, arrival.url])).toEqual([
    ['GET', '/gh/notifications'],
  ]);
  expect(upstream.arrivals[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
  const [answer] = toolAnswers();
  expect(answer).toMatch(/^HTTP 201 \(application\/json\)\n/);
  expect(answer).toContain('"url":"/gh/notifications"');
  expect(result).toMatchObject({
    output: 'You have one notification.',
    serviceCalls: [{ service: 'github', method: 'GET', path: 'notifications', status: 201, error: null }],
  });
});

test("a write beyond the agent's scopes is refused by the proxy, never sent, and the model is told", async () => {
  llm.script(
    callTools([
      {
        name: 'call_service',
        arguments: { service: 'github', method: 'POST', path: 'user/repos', body: { name: 'x' } },
      },
    ]),
    streamReply(['I may not create repositories.']),
  );
  const result = await run();
  expect(upstream.arrivals).toEqual([]);
  expect(toolAnswers()).toEqual([
    'Refused (INSUFFICIENT_SCOPE): This endpoint needs the scope services:github:user:write, which the token does not grant.',
  ]);
  expect(result.serviceCalls).toEqual([
    {
      service: 'github',
      method: 'POST',
      path: 'user/repos',
      status: null,
      error: expect.stringMatching(/^INSUFFICIENT_SCOPE: .*services:github:user:write/),
    },
  ]);
});
