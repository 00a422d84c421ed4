/**
 * brain.chat.send with no provider configured at all (no CHAT_* configuration, no owner
 * provider): the offline brain quotes the owner's best-matching knowledge and memory with their
 * ids, says plainly that no language model is configured and how to configure one, and says so
 * when nothing matches. It never makes anything up. It streams too, and keeps conversations.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { ChatReply, ProviderSettings } from '@pag/contracts';
import { BrainEndpoints, BrainOwnerEndpoints, ChatReply as ChatReplySchema } from '@pag/contracts';
import type { StreamPart } from '@pag/kit';
import { addDocument } from './support/seed.ts';
import type { Caller, TestBrain } from './support/start-test-brain.ts';
import { callerHeaders, startTestBrain } from './support/start-test-brain.ts';

let t: TestBrain;
beforeAll(async () => {
  t = await startTestBrain();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const chat = (caller: Caller, body: { message: string; conversationId?: string }) =>
  t.ask<ChatReply>(BrainEndpoints.chatSend.subject, caller, { body });

describe('the offline brain', () => {
  test('answers a question from the one document that holds the answer: quotes it and cites its id', async () => {
    const accountId = t.auth.addAccount('offline.quote@example.com');
    const allergies = await addDocument(t.db, accountId, {
      title: 'Health',
      kind: 'preferences',
      content: 'Alice is allergic to peanuts and shellfish.',
    });
    await addDocument(t.db, accountId, { title: 'Music', kind: 'preferences', content: 'Jazz on Sundays.' });
    const reply = await chat({ accountId, agentId: 'agent-o' }, { message: 'What is Alice allergic to?' });
    expect(ChatReplySchema.parse(reply)).toEqual(reply);
    expect(reply).toMatchObject({
      model: 'offline',
      provider: 'offline',
      usage: null,
      sources: { knowledge: [allergies], memory: [] },
    });
    expect(reply.reply).toContain('No language model is configured');
    expect(reply.reply).toContain(`[${allergies}]`);
    expect(reply.reply).toContain('> Alice is allergic to peanuts and shellfish.');
    expect(reply.reply).toContain('CHAT_BASE_URL');
    expect(reply.reply).not.toContain('Jazz');
  });

  test('quotes memory entries too, with their ids', async () => {
    const accountId = t.auth.addAccount('offline.memory@example.com');
    const entry = await t.ask<{ id: string }>(
      BrainEndpoints.memoryCreate.subject,
      { accountId },
      {
        body: { content: 'The dentist appointment moved to Thursday.' },
      },
    );
    const reply = await chat({ accountId }, { message: 'When is the dentist?' });
    expect(reply.sources).toEqual({ knowledge: [], memory: [entry.id] });
    expect(reply.reply).toContain(`Memory entry [${entry.id}]`);
    expect(reply.reply).toContain('> The dentist appointment moved to Thursday.');
  });

  test('says so when nothing matches, and invents nothing', async () => {
    const accountId = t.auth.addAccount('offline.nothing@example.com');
    await addDocument(t.db, accountId, { title: 'Music', kind: 'preferences', content: 'Jazz on Sundays.' });
    const reply = await chat({ accountId }, { message: 'What is the capital of Peru?' });
    expect(reply.sources).toEqual({ knowledge: [], memory: [] });
    expect(reply.reply).toContain(
      "No language model is configured for this brain, and nothing in the owner's knowledge base or memory matches your message.",
    );
    expect(reply.reply).not.toContain('Lima');
    expect(reply.reply).not.toContain('Jazz');
  });

  test('keeps the conversation: a second message carries the same conversationId', async () => {
    const accountId = t.auth.addAccount('offline.twice@example.com');
    const agent = { accountId, agentId: 'agent-twice' };
    const first = await chat(agent, { message: 'hello' });
    const second = await chat(agent, { message: 'hello again', conversationId: first.conversationId });
    expect(second.conversationId).toBe(first.conversationId);
    const stored = await t.ask<{ messages: { role: string; model: string | null }[] }>(
      BrainEndpoints.conversationGet.subject,
      agent,
      { params: { id: first.conversationId } },
    );
    expect(stored.messages.map((m) => [m.role, m.model])).toEqual([
      ['user', null],
      ['assistant', 'offline'],
      ['user', null],
      ['assistant', 'offline'],
    ]);
  });

  test('streams: start, then its parts as deltas, whose concatenation is the reply', async () => {
    const accountId = t.auth.addAccount('offline.stream@example.com');
    const doc = await addDocument(t.db, accountId, {
      title: 'Car',
      kind: 'other',
      content: 'The car is blue.',
    });
    const parts: StreamPart[] = [];
    for await (const part of t.bus.requestStream(
      BrainEndpoints.chatSend.subject,
      { params: {}, query: {}, body: { message: 'What colour is the car?' } },
      { timeoutMs: 10_000, headers: callerHeaders({ accountId }) },
    ))
      parts.push(part);
    const last = parts.at(-1);
    if (last?.kind !== 'reply') throw new Error('the stream ended without its reply');
    const reply = last.data as ChatReply;
    expect(parts[0]).toEqual({
      kind: 'event',
      event: 'start',
      data: { conversationId: reply.conversationId, model: 'offline' },
    });
    const deltas = parts.slice(1, -1).flatMap((part) => (part.kind === 'event' ? [part] : []));
    expect(deltas.every((part) => part.event === 'delta')).toBe(true);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((part) => (part.data as { text: string }).text).join('')).toBe(reply.reply);
    expect(reply.sources.knowledge).toEqual([doc]);
  });

  test('a long document is quoted by its best fragments, the matched words in bold', async () => {
    const accountId = t.auth.addAccount('offline.long@example.com');
    const filler = 'Nothing of note happened on this day at all. '.repeat(30);
    await addDocument(t.db, accountId, {
      title: 'Diary',
      kind: 'other',
      content: `${filler}The spare key is under the blue flowerpot. ${filler}`,
    });
    const reply = await chat({ accountId }, { message: 'Where is the spare key?' });
    expect(reply.reply).toMatch(/> … .*\*\*spare\*\* \*\*key\*\* is under the blue flowerpot.* …/);
    expect(reply.reply.length).toBeLessThan(filler.length);
  });

  test('the provider settings say none; an owner cannot store a key without BRAIN_ENCRYPTION_KEY', async () => {
    const accountId = t.auth.addAccount('offline.settings@example.com');
    const ask = <R>(endpoint: { subject: string }, request: unknown) =>
      t.bus.request<R>(endpoint.subject, request, { timeoutMs: 5_000 });
    expect(await ask<ProviderSettings>(BrainOwnerEndpoints.providerGet, { accountId })).toEqual({
      source: 'none',
      baseUrl: null,
      model: null,
      hasApiKey: false,
      updatedAt: null,
    });
    await expect(
      ask(BrainOwnerEndpoints.providerSet, {
        accountId,
        baseUrl: 'http://127.0.0.1:11434/v1',
        model: 'llama3.2',
        apiKey: 'sk-x',
      }),
    ).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringContaining('BRAIN_ENCRYPTION_KEY'),
    });
    expect(await t.db.providerSetting.count({ where: { accountId } })).toBe(0);
  });
});
