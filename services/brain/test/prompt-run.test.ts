/**
 * brain.prompt.run (from the trigger service): a trigger's prompt carried out as its creating
 * agent. With a provider (a local OpenAI-compatible server, support/fake-llm.ts): the agent's
 * persona as the system message, the knowledge retrieved for the prompt, the `call_service` tool
 * whose calls go to proxy.calls.forward with the run's scopes (here a stand-in proxy on the bus
 * that records what it was asked; test/trigger-prompt-run.test.ts runs the real proxy), refusals
 * told to the model, the bound on tool rounds, the provider's failure, the output cap. Without
 * one: the offline brain, naming no service call. The memory entry, and tenancy.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { PromptRunRequest, ProxyCallResult } from '@pag/contracts';
import {
  AppError,
  BrainOwnerEndpoints,
  BrainServiceEndpoints,
  ProxyCallRequest,
  ProxyEndpoints,
  QueueGroups,
  TRIGGER_OUTPUT_MAX_BYTES,
} from '@pag/contracts';
import { requestEndpoint } from '@pag/kit';
import type { z } from 'zod';
import { MAX_TOOL_ROUNDS } from '../src/prompt/run-with-model.ts';
import { callTools, FAKE_MODEL, FakeLlm, failWith, streamReply } from './support/fake-llm.ts';
import { addDocument, addPersona } from './support/seed.ts';
import type { TestBrain } from './support/start-test-brain.ts';
import { startTestBrain } from './support/start-test-brain.ts';

const id = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;
const AGENT = id('ag');
const SOUL = 'You are the release steward. Write terse digests.';
const FREEZE = 'Deployments freeze every Friday from noon; hotfixes need two approvals.';

let llm: FakeLlm;
let t: TestBrain;
/** What the stand-in proxy was asked, and how it answers next (default: a 200 with JSON). */
const proxied: z.output<typeof ProxyCallRequest>[] = [];
let proxyAnswer: (call: z.output<typeof ProxyCallRequest>) => ProxyCallResult = () => ({
  status: 200,
  contentType: 'application/json',
  body: '[{"id":"n1","subject":"Release 2.4 is out"}]',
  truncated: false,
});
let owner: string;
let docId: string;

beforeAll(async () => {
  llm = await FakeLlm.start();
  t = await startTestBrain({ CHAT_MAX_RETRIES: '0', CHAT_TIMEOUT_MS: '5000' });
  const proxyBus = await t.broker.connect('proxy');
  await proxyBus.handle(
    ProxyEndpoints.callForward.subject,
    (message) => {
      const call = ProxyCallRequest.parse(message.data);
      proxied.push(call);
      return proxyAnswer(call);
    },
    { queue: QueueGroups.proxy },
  );
  owner = t.auth.addAccount('runs.owner@example.com');
  await addPersona(t.db, owner, { name: 'Steward', agentId: AGENT, soulContent: SOUL });
  docId = await addDocument(t.db, owner, { title: 'Release rules', kind: 'note', content: FREEZE });
  await withProvider(owner);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await llm?.close();
});
beforeEach(() => {
  proxied.length = 0;
  llm.requests.length = 0;
});

function withProvider(accountId: string) {
  return requestEndpoint(
    t.authBus,
    BrainOwnerEndpoints.providerSet,
    { accountId, baseUrl: llm.url, model: 'owner-model' },
    { timeoutMs: 5_000 },
  );
}

function run(fields: Partial<PromptRunRequest> = {}) {
  return requestEndpoint(
    t.bus,
    BrainServiceEndpoints.promptRun,
    {
      accountId: owner,
      agentId: AGENT,
      clientId: 'client-of-the-steward',
      scopes: ['chat', 'services:github:read'],
      triggerId: id('trg'),
      runId: id('run'),
      prompt: 'Summarise the deployment freeze rules and my GitHub notifications.',
      services: [],
      saveOutputToMemory: false,
      ...fields,
    },
    { timeoutMs: 20_000 },
  );
}

const toolMessages = (index: number) =>
  (llm.requests[index]?.body.messages ?? []).filter((message) => message.role === 'tool');

describe('with a provider', () => {
  test("the model gets the agent's persona, the knowledge retrieved for the prompt and the run's instructions", async () => {
    const triggerId = id('trg');
    const result = await run({ triggerId });
    expect(result).toEqual({
      output: 'Hello from the model.',
      model: FAKE_MODEL,
      provider: 'openai-compatible',
      memoryId: null,
      serviceCalls: [],
    });
    const [request] = llm.requests;
    const messages = request?.body.messages ?? [];
    expect(messages[0]).toEqual({ role: 'system', content: SOUL });
    expect(messages[1]?.content).toContain(`[${docId}] Release rules:\n${FREEZE}`);
    expect(messages[2]?.content).toContain(`trigger ${triggerId}`);
    expect(messages[2]?.content).toContain('No connected services are available to this run.');
    expect(messages.at(-1)).toEqual({
      role: 'user',
      content: 'Summarise the deployment freeze rules and my GitHub notifications.',
    });
    // No services listed: no tool offered.
    expect(request?.body.tools).toBeUndefined();
    // A run is not a conversation.
    expect(await t.db.conversation.count({ where: { accountId: owner } })).toBe(0);
  });

  test("a call_service call goes to the proxy with the run's account, agent and scopes; its answer goes back to the model", async () => {
    llm.script(
      callTools([
        {
          name: 'call_service',
          arguments: { service: 'github', method: 'get', path: 'notifications', query: { all: false } },
        },
      ]),
      streamReply(['One release: 2.4.']),
    );
    const result = await run({ services: ['github'] });
    expect(proxied).toEqual([
      {
        accountId: owner,
        agentId: AGENT,
        clientId: 'client-of-the-steward',
        scopes: ['chat', 'services:github:read'],
        service: 'github',
        method: 'GET',
        path: 'notifications',
        query: { all: 'false' },
        body: null,
      },
    ]);
    const tools = llm.requests[0]?.body.tools ?? [];
    expect(tools.map((tool) => tool.function.name)).toEqual(['call_service']);
    expect(tools[0]?.function.parameters).toMatchObject({ properties: { service: { enum: ['github'] } } });
    expect(toolMessages(1)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'call_1',
        content: 'HTTP 200 (application/json)\n[{"id":"n1","subject":"Release 2.4 is out"}]',
      },
    ]);
    expect(result.output).toBe('One release: 2.4.');
    expect(result.serviceCalls).toEqual([
      { service: 'github', method: 'GET', path: 'notifications', status: 200, error: null },
    ]);
  });

  test('a refused call is told to the model, and a service outside the list never reaches the proxy', async () => {
    proxyAnswer = (call) => {
      throw new AppError(
        'INSUFFICIENT_SCOPE',
        `This endpoint needs the scope services:github:${call.path}:write, which the token does not grant.`,
      );
    };
    try {
      llm.script(
        callTools([
          {
            name: 'call_service',
            arguments: { service: 'github', method: 'POST', path: 'user/repos', body: { name: 'x' } },
          },
          {
            name: 'call_service',
            arguments: { service: 'slack', method: 'GET', path: 'conversations.list' },
          },
        ]),
        streamReply(['I could not create the repository.']),
      );
      const result = await run({ services: ['github'] });
      expect(proxied.map((call) => [call.service, call.method, call.body])).toEqual([
        ['github', 'POST', '{"name":"x"}'],
      ]);
      const [refused, outside] = toolMessages(1);
      expect(refused?.content).toBe(
        'Refused (INSUFFICIENT_SCOPE): This endpoint needs the scope services:github:user/repos:write, which the token does not grant.',
      );
      expect(outside?.content).toBe(
        'Refused (INSUFFICIENT_SCOPE): This automation may call github only; nothing was called.',
      );
      expect(result.serviceCalls).toEqual([
        {
          service: 'github',
          method: 'POST',
          path: 'user/repos',
          status: null,
          error: expect.stringMatching(/^INSUFFICIENT_SCOPE: /),
        },
      ]);
    } finally {
      proxyAnswer = () => ({ status: 200, contentType: null, body: 'ok', truncated: false });
    }
  });

  test(`the tool rounds are bounded: after ${MAX_TOOL_ROUNDS} the model must answer without the tool`, async () => {
    const call = {
      name: 'call_service',
      arguments: { service: 'github', method: 'GET', path: 'notifications' },
    };
    llm.script(...Array.from({ length: MAX_TOOL_ROUNDS }, () => callTools([call])), streamReply(['Done.']));
    const result = await run({ services: ['github'] });
    expect(llm.requests).toHaveLength(MAX_TOOL_ROUNDS + 1);
    expect(llm.requests.slice(0, -1).every((request) => request.body.tools?.length === 1)).toBe(true);
    expect(llm.requests.at(-1)?.body.tools).toBeUndefined();
    expect(proxied).toHaveLength(MAX_TOOL_ROUNDS);
    expect(result.output).toBe('Done.');
  });

  test("the provider's 500 fails the run with UPSTREAM_ERROR, never an offline answer", async () => {
    llm.script(failWith(500));
    await expect(run()).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: expect.stringContaining('HTTP 500'),
    });
  });

  test('an output longer than TRIGGER_OUTPUT_MAX_BYTES is cut, and says so', async () => {
    llm.script(streamReply(['€'.repeat(30_000), '€'.repeat(30_000)]));
    const { output } = await run();
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(TRIGGER_OUTPUT_MAX_BYTES);
    expect(output).toMatch(/^€+\n\n\[Output cut: it exceeded 65536 bytes\.\]$/);
  });

  test('saveOutputToMemory writes one memory entry of the agent', async () => {
    const before = await t.db.memoryEntry.count({ where: { accountId: owner } });
    const result = await run({ saveOutputToMemory: true });
    const entries = await t.db.memoryEntry.findMany({ where: { accountId: owner } });
    expect(entries).toHaveLength(before + 1);
    const entry = entries.find((row) => row.id === result.memoryId);
    expect(entry).toMatchObject({ agentId: AGENT, content: 'Hello from the model.' });
  });
});

describe('without a provider (the offline brain)', () => {
  test('quotes a knowledge document, says no model is configured and that the services were not consulted', async () => {
    const accountId = t.auth.addAccount('runs.offline@example.com');
    const doc = await addDocument(t.db, accountId, { title: 'Release rules', kind: 'note', content: FREEZE });
    const result = await run({ accountId, services: ['github', 'slack'], saveOutputToMemory: true });
    expect(result).toMatchObject({ model: 'offline', provider: 'offline', serviceCalls: [] });
    expect(result.output).toContain('The services this automation lists (github, slack) were not consulted');
    expect(result.output).toContain('No language model is configured');
    expect(result.output).toContain(`[${doc}]`);
    expect(result.output).toContain(`> ${FREEZE}`);
    expect(proxied).toEqual([]);
    expect(llm.requests).toEqual([]);
    const entries = await t.db.memoryEntry.findMany({ where: { accountId } });
    expect(entries.map((entry) => [entry.id, entry.agentId, entry.content])).toEqual([
      [result.memoryId, AGENT, result.output],
    ]);
  });
});

describe('tenancy', () => {
  test("another account's run with this account's agent id gets nothing of this account", async () => {
    const stranger = t.auth.addAccount('runs.stranger@example.com');
    await withProvider(stranger);
    const offline = t.auth.addAccount('runs.stranger.offline@example.com');
    const ownersEntries = await t.db.memoryEntry.count({ where: { accountId: owner } });
    await run({ accountId: stranger, saveOutputToMemory: true });
    const messages = llm.requests[0]?.body.messages ?? [];
    const seen = JSON.stringify(messages);
    expect(seen).not.toContain(SOUL);
    expect(seen).not.toContain(docId);
    expect(seen).not.toContain('Deployments freeze');
    const quoted = await run({ accountId: offline });
    expect(quoted.output).not.toContain(docId);
    expect(quoted.output).toContain('nothing in the owner');
    // The entry is the stranger's; this account's memory has none of it.
    expect(await t.db.memoryEntry.count({ where: { accountId: stranger } })).toBe(1);
    expect(await t.db.memoryEntry.count({ where: { accountId: owner } })).toBe(ownersEntries);
  });
});
