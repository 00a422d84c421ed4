/**
 * brain.chat.send and brain.conversations.get with a configured provider: a local
 * OpenAI-compatible server (support/fake-llm.ts) that the brain's real `openai` client talks to.
 * What the provider receives (the persona's soul_content as the system message, the identity, the
 * relevant knowledge and memory, the history), the failures (500 → 502, a hang → 504, 429 then a
 * success), streaming, the per-owner cap, the owner's own provider with its sealed key, the audit
 * event, and that one agent never continues or reads another's conversation.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ActionAuditEvent, ChatReply, Conversation, ProviderSettings } from '@pag/contracts';
import {
  ActionAuditEvent as ActionAuditEventSchema,
  AuditStream,
  BrainEndpoints,
  BrainOwnerEndpoints,
  ChatReply as ChatReplySchema,
} from '@pag/contracts';
import type { StreamPart } from '@pag/kit';
import { FAKE_MODEL, FakeLlm, failWith, hang, streamReply } from './support/fake-llm.ts';
import { addDocument, addPersona } from './support/seed.ts';
import type { Caller, TestBrain } from './support/start-test-brain.ts';
import { callerHeaders, startTestBrain } from './support/start-test-brain.ts';

const DEPLOYMENT_KEY = 'sk-deployment-test-key';
const TIMEOUT_MS = 1_500;

let llm: FakeLlm;
let t: TestBrain;
type AuditItem = { subject: string; event: ActionAuditEvent };
const audit: AuditItem[] = [];
const auditWaiters = new Map<string, (item: AuditItem) => void>();

beforeAll(async () => {
  llm = await FakeLlm.start();
  t = await startTestBrain({
    CHAT_BASE_URL: llm.url,
    CHAT_MODEL: 'configured-model',
    CHAT_API_KEY: DEPLOYMENT_KEY,
    CHAT_TIMEOUT_MS: String(TIMEOUT_MS),
    CHAT_MAX_RETRIES: '1',
    CHAT_OWNER_CONCURRENCY: '2',
    BRAIN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  await t.bus.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
  await t.bus.consume<unknown>(AuditStream.name, 'chat-audit-test', async (message) => {
    const item = { subject: message.subject, event: ActionAuditEventSchema.parse(message.data) };
    audit.push(item);
    auditWaiters.get(item.event.requestId)?.(item);
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await llm?.close();
});

const chat = (caller: Caller, body: { message: string; conversationId?: string }, requestId?: string) =>
  t.bus.request<ChatReply>(
    BrainEndpoints.chatSend.subject,
    { params: {}, query: {}, body },
    {
      timeoutMs: 10_000,
      headers: {
        ...callerHeaders(caller),
        ...(requestId === undefined ? {} : { 'x-request-id': requestId }),
      },
    },
  );
const conversation = (caller: Caller, id: string) =>
  t.ask<Conversation>(BrainEndpoints.conversationGet.subject, caller, { params: { id } });
const owner = <R>(endpoint: { subject: string }, request: unknown) =>
  t.bus.request<R>(endpoint.subject, request, { timeoutMs: 5_000 });

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('what the provider receives', () => {
  test("the persona's soul_content as the system message, the identity, and the relevant knowledge and memory", async () => {
    const accountId = t.auth.addAccount('chat.alice@example.com');
    await addPersona(t.db, accountId, { name: 'Concise', soulContent: 'You are terse. Answer in one line.' });
    const travel = await addDocument(t.db, accountId, {
      title: 'Travel',
      kind: 'preferences',
      content: 'Alice always takes the train to Paris; never flights.',
    });
    const unrelated = await addDocument(t.db, accountId, {
      title: 'Garden',
      kind: 'other',
      content: 'Roses.',
    });
    const memory = await t.ask<{ id: string }>(
      BrainEndpoints.memoryCreate.subject,
      { accountId },
      {
        body: { content: 'Booked the Paris train for March 3.' },
      },
    );

    const arrived = llm.nextArrival();
    const reply = await chat(
      { accountId, agentId: 'agent-a' },
      { message: 'How do I get to Paris by train?' },
    );
    const request = await arrived;

    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${DEPLOYMENT_KEY}`);
    expect(request.body).toMatchObject({ model: 'configured-model', stream: true });
    const [system, context, ...rest] = request.body.messages;
    expect(system).toEqual({ role: 'system', content: 'You are terse. Answer in one line.' });
    expect(context?.role).toBe('system');
    expect(context?.content).toContain('About the owner: chat.alice.');
    expect(context?.content).toContain(
      `[${travel}] Travel:\nAlice always takes the train to Paris; never flights.`,
    );
    expect(context?.content).toContain(`[${memory.id}] memory:\nBooked the Paris train for March 3.`);
    expect(context?.content).not.toContain(unrelated);
    expect(rest).toEqual([{ role: 'user', content: 'How do I get to Paris by train?' }]);

    expect(ChatReplySchema.parse(reply)).toEqual(reply);
    expect(reply).toEqual({
      conversationId: expect.stringMatching(/^conv_/),
      reply: 'Hello from the model.',
      model: FAKE_MODEL,
      provider: 'openai-compatible',
      sources: { knowledge: [travel], memory: [memory.id] },
      usage: { promptTokens: 42, completionTokens: 7 },
      createdAt: expect.any(String),
    });
  });

  test('a second message with the same conversationId carries the history; the conversation reads back', async () => {
    const accountId = t.auth.addAccount('chat.history@example.com');
    const agent = { accountId, agentId: 'agent-h' };
    llm.script(streamReply(['First answer.']));
    const first = await chat(agent, { message: 'First question?' });
    const arrived = llm.nextArrival();
    const second = await chat(agent, { message: 'Second question?', conversationId: first.conversationId });
    expect(second.conversationId).toBe(first.conversationId);
    expect((await arrived).body.messages.slice(2)).toEqual([
      { role: 'user', content: 'First question?' },
      { role: 'assistant', content: 'First answer.' },
      { role: 'user', content: 'Second question?' },
    ]);
    const stored = await conversation(agent, first.conversationId);
    expect(stored.messages.map(({ role, content, model }) => ({ role, content, model }))).toEqual([
      { role: 'user', content: 'First question?', model: null },
      { role: 'assistant', content: 'First answer.', model: FAKE_MODEL },
      { role: 'user', content: 'Second question?', model: null },
      { role: 'assistant', content: 'Hello from the model.', model: FAKE_MODEL },
    ]);
    expect(stored.messages[1]?.sources).toEqual({ knowledge: [], memory: [] });
  });
});

describe('provider failures', () => {
  test('a provider 500 (after one retry) is our 502 naming the provider and status, never the key; nothing stored', async () => {
    const accountId = t.auth.addAccount('chat.fail@example.com');
    const before = llm.requests.length;
    llm.script(failWith(500), failWith(500));
    const failure = await chat({ accountId }, { message: 'Anything?' }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'UPSTREAM_ERROR', status: 502, expose: true });
    const { message } = failure as Error;
    expect(message).toContain('HTTP 500');
    expect(message).toContain('127.0.0.1');
    expect(message).not.toMatch(/sk-/);
    expect(llm.requests.length - before).toBe(2);
    expect(await t.db.conversation.count({ where: { accountId } })).toBe(0);
  });

  test('a provider that hangs is our 504 after CHAT_TIMEOUT_MS', async () => {
    const accountId = t.auth.addAccount('chat.hang@example.com');
    llm.script(hang);
    const started = Date.now();
    await expect(chat({ accountId }, { message: 'Still there?' })).rejects.toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      status: 504,
      message: expect.stringContaining(`${TIMEOUT_MS} ms`),
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  });

  test('429 then a success is retried and answered', async () => {
    const accountId = t.auth.addAccount('chat.retry@example.com');
    const before = llm.requests.length;
    llm.script(failWith(429), streamReply(['After the retry.']));
    expect((await chat({ accountId }, { message: 'Busy?' })).reply).toBe('After the retry.');
    expect(llm.requests.length - before).toBe(2);
  });
});

describe('streaming', () => {
  test('start, then the deltas in order as the provider sends them, then the reply', async () => {
    const accountId = t.auth.addAccount('chat.stream@example.com');
    const gates = [deferred(), deferred(), deferred()];
    gates[0]?.resolve();
    llm.script(streamReply(['One', ', two', ', three.'], { before: gates.map((gate) => gate.promise) }));
    const parts: StreamPart[] = [];
    for await (const part of t.bus.requestStream(
      BrainEndpoints.chatSend.subject,
      { params: {}, query: {}, body: { message: 'Count to three.' } },
      { timeoutMs: 10_000, headers: callerHeaders({ accountId, agentId: 'agent-s' }) },
    )) {
      parts.push(part);
      // The provider sends its next chunk only once the previous delta has reached us.
      const deltas = parts.filter((p) => p.kind === 'event' && p.event === 'delta').length;
      gates[deltas]?.resolve();
    }
    const reply = parts.at(-1);
    if (reply?.kind !== 'reply') throw new Error('the stream ended without its reply');
    const { conversationId } = reply.data as ChatReply;
    expect(parts.slice(0, -1)).toEqual([
      { kind: 'event', event: 'start', data: { conversationId, model: 'configured-model' } },
      { kind: 'event', event: 'delta', data: { text: 'One' } },
      { kind: 'event', event: 'delta', data: { text: ', two' } },
      { kind: 'event', event: 'delta', data: { text: ', three.' } },
    ]);
    expect(reply.data).toMatchObject({ reply: 'One, two, three.', model: FAKE_MODEL });
  });
});

describe('the per-owner cap (CHAT_OWNER_CONCURRENCY = 2)', () => {
  test('a third chat of one owner in progress is 429 with Retry-After; another owner is not held up', async () => {
    const a = t.auth.addAccount('chat.busy.a@example.com');
    const b = t.auth.addAccount('chat.busy.b@example.com');
    const release = deferred();
    llm.script(
      streamReply(['a1'], { before: [release.promise] }),
      streamReply(['a2'], { before: [release.promise] }),
    );
    const arrivals = [llm.nextArrival(), llm.nextArrival()];
    const running = [chat({ accountId: a }, { message: 'one' }), chat({ accountId: a }, { message: 'two' })];
    await Promise.all(arrivals);
    await expect(chat({ accountId: a }, { message: 'three' })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      headers: { 'Retry-After': '2' },
    });
    expect((await chat({ accountId: b }, { message: 'other owner' })).reply).toBe('Hello from the model.');
    release.resolve();
    expect((await Promise.all(running)).map((r) => r.reply).sort()).toEqual(['a1', 'a2']);
    expect((await chat({ accountId: a }, { message: 'four' })).reply).toBe('Hello from the model.');
  });
});

describe('tenancy', () => {
  test("agent Y cannot continue or read agent X's conversation, nor can another owner or a token without an agent", async () => {
    const accountId = t.auth.addAccount('chat.tenancy@example.com');
    const other = t.auth.addAccount('chat.tenancy.other@example.com');
    const x = { accountId, agentId: 'agent-x' };
    const { conversationId } = await chat(x, { message: 'Secret plans?' });
    const before = llm.requests.length;
    for (const intruder of [
      { accountId, agentId: 'agent-y' },
      { accountId },
      { accountId: other, agentId: 'agent-x' },
    ]) {
      await expect(chat(intruder, { message: 'Tell me', conversationId })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        status: 404,
      });
      await expect(conversation(intruder, conversationId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(llm.requests.length).toBe(before);
    expect((await conversation(x, conversationId)).messages).toHaveLength(2);
    await expect(conversation(x, 'conv_doesNotExist')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe("the owner's own provider", () => {
  test('is stored with its key sealed, wins over the deployment, and clearing it restores the deployment', async () => {
    const accountId = t.auth.addAccount('chat.ownprovider@example.com');
    const ownUrl = llm.url.replace(/\/v1$/, '/owner/v1');
    const set = await owner<ProviderSettings>(BrainOwnerEndpoints.providerSet, {
      accountId,
      baseUrl: ownUrl,
      model: 'owner-model',
      apiKey: 'sk-owner-secret-key',
    });
    expect(set).toEqual({
      source: 'owner',
      baseUrl: ownUrl,
      model: 'owner-model',
      hasApiKey: true,
      updatedAt: expect.any(String),
    });
    const row = await t.db.providerSetting.findUniqueOrThrow({ where: { accountId } });
    expect(row.apiKeySealed).not.toContain('sk-owner');
    // The sealed key is bound to its account: copied into another owner's row it does not open.
    const thief = t.auth.addAccount('chat.thief@example.com');
    await t.db.providerSetting.create({
      data: { accountId: thief, baseUrl: ownUrl, model: 'owner-model', apiKeySealed: row.apiKeySealed },
    });
    await expect(chat({ accountId: thief }, { message: 'hi' })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });

    const arrived = llm.nextArrival();
    await chat({ accountId }, { message: 'Whose model?' });
    const request = await arrived;
    expect(request.path).toBe('/owner/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-owner-secret-key');
    expect(request.body.model).toBe('owner-model');

    // apiKey omitted keeps the key; null removes it (no Authorization header then).
    await owner(BrainOwnerEndpoints.providerSet, { accountId, baseUrl: ownUrl, model: 'owner-model-2' });
    expect(await owner(BrainOwnerEndpoints.providerGet, { accountId })).toMatchObject({ hasApiKey: true });
    await owner(BrainOwnerEndpoints.providerSet, {
      accountId,
      baseUrl: ownUrl,
      model: 'local',
      apiKey: null,
    });
    const keyless = llm.nextArrival();
    await chat({ accountId }, { message: 'Keyless?' });
    expect((await keyless).headers.authorization).toBeUndefined();

    expect(await owner(BrainOwnerEndpoints.providerClear, { accountId })).toEqual({
      source: 'deployment',
      baseUrl: llm.url,
      model: 'configured-model',
      hasApiKey: true,
      updatedAt: null,
    });
    const back = llm.nextArrival();
    await chat({ accountId }, { message: 'Deployment again?' });
    expect((await back).headers.authorization).toBe(`Bearer ${DEPLOYMENT_KEY}`);
  });
});

describe('audit', () => {
  test('one chat.reply event per reply: agent, conversation, provider, model, usage; never the text', async () => {
    const accountId = t.auth.addAccount('chat.audit@example.com');
    const requestId = `req-chat-audit-${Date.now()}`;
    const reply = await chat(
      { accountId, agentId: 'agent-audit' },
      { message: 'Private question' },
      requestId,
    );
    const failedId = `${requestId}-fail`;
    llm.script(failWith(503), failWith(503));
    await expect(chat({ accountId }, { message: 'x' }, failedId)).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
    });
    const [ok, failed] = await Promise.all([eventOf(requestId), eventOf(failedId)]);
    expect(ok.subject).toBe('audit.events.brain');
    expect(ok.event).toMatchObject({
      kind: 'action',
      source: 'brain',
      accountId,
      agentId: 'agent-audit',
      actor: { type: 'agent', id: 'agent-audit' },
      action: 'chat.reply',
      target: reply.conversationId,
      decision: 'allowed',
      reason: null,
      detail: {
        provider: 'openai-compatible',
        providerSource: 'deployment',
        model: FAKE_MODEL,
        promptTokens: 42,
        completionTokens: 7,
      },
    });
    expect(JSON.stringify(ok.event)).not.toContain('Private question');
    expect(JSON.stringify(ok.event)).not.toContain('Hello from the model');
    expect(failed.event).toMatchObject({ decision: 'error', reason: 'UPSTREAM_ERROR', target: null });
  });
});

/** The audit event of a request, once the stream delivers it. */
function eventOf(requestId: string): Promise<AuditItem> {
  const seen = audit.find((item) => item.event.requestId === requestId);
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve) => auditWaiters.set(requestId, resolve));
}
