/**
 * Chat end to end on the embedded stack (gateway → bus → brain → a local OpenAI-compatible
 * server): a token from `pag token create --scopes full`; with `Accept: text/event-stream` the
 * reply arrives as server-sent events, `start`, then each `delta` as the provider sends it (the
 * provider holds its next chunk until the client has read the previous delta, so nothing is
 * buffered on the way), then `done` with the ChatReply; without it, JSON; a second message in the
 * same conversation carries the history, and GET /api/v1/brain/conversations/:id reads it back.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { ChatReply, Conversation } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { pagCommand } from '../packages/stack/test/support/pag.ts';
import { FAKE_MODEL, FakeLlm, streamReply } from '../services/brain/test/support/fake-llm.ts';

const OWNER = { email: 'chat@story.test', password: 'chat story password' };

let llm: FakeLlm;
let stack: StackProcess;
let token: string;

beforeAll(async () => {
  llm = await FakeLlm.start();
  stack = await startStackProcess({
    env: { CHAT_BASE_URL: llm.url, CHAT_MODEL: 'story-model', CHAT_API_KEY: 'sk-story' },
  });
  const pag = pagCommand(() => stack.dataDir);
  expect((await pag('owner', 'create', '--email', OWNER.email, '--password', OWNER.password)).code).toBe(0);
  const made = await pag('token', 'create', '--owner', OWNER.email, '--name', 'chat', '--scopes', 'full');
  expect(made.code).toBe(0);
  token = made.out.at(-1) ?? '';
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await llm?.close();
});

const post = (body: unknown, accept = 'application/json') =>
  fetch(`${stack.url}/api/v1/brain/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });

/** Server-sent events as they arrive: one `{event, data}` per blank-line-terminated block. */
async function* events(response: Response): AsyncGenerator<{ event: string; data: unknown }> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body ?? []) {
    buffered += decoder.decode(chunk as Uint8Array, { stream: true });
    for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const field = (name: string) =>
        block
          .split('\n')
          .find((line) => line.startsWith(`${name}:`))
          ?.slice(name.length + 1)
          .trim();
      const event = field('event');
      const data = field('data');
      if (event !== undefined && data !== undefined) yield { event, data: JSON.parse(data) };
    }
  }
}

test('streamed: start, the deltas in order as the provider sends them, then done with the reply', async () => {
  const gates = [Promise.withResolvers<void>(), Promise.withResolvers<void>(), Promise.withResolvers<void>()];
  gates[0]?.resolve();
  llm.script(
    streamReply(['Streamed', ' through', ' the gateway.'], { before: gates.map((gate) => gate.promise) }),
  );
  const response = await post({ message: 'Stream please.' }, 'text/event-stream');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const seen: { event: string; data: unknown }[] = [];
  for await (const item of events(response)) {
    seen.push(item);
    gates[seen.filter((s) => s.event === 'delta').length]?.resolve();
  }
  const done = seen.at(-1);
  expect(done?.event).toBe('done');
  const reply = ChatReply.parse(done?.data);
  expect(seen.slice(0, -1)).toEqual([
    { event: 'start', data: { conversationId: reply.conversationId, model: 'story-model' } },
    { event: 'delta', data: { text: 'Streamed' } },
    { event: 'delta', data: { text: ' through' } },
    { event: 'delta', data: { text: ' the gateway.' } },
  ]);
  expect(reply).toMatchObject({ reply: 'Streamed through the gateway.', model: FAKE_MODEL });
});

test('JSON: twice in one conversation (the second carries the history), then read back', async () => {
  llm.script(streamReply(['First.']));
  const first = await post({ message: 'One?' });
  expect(first.status).toBe(200);
  const { conversationId } = ChatReply.parse(await first.json());
  const arrived = llm.nextArrival();
  const second = ChatReply.parse(await (await post({ message: 'Two?', conversationId })).json());
  expect(second.conversationId).toBe(conversationId);
  expect((await arrived).body.messages.slice(-3)).toEqual([
    { role: 'user', content: 'One?' },
    { role: 'assistant', content: 'First.' },
    { role: 'user', content: 'Two?' },
  ]);
  const read = await fetch(`${stack.url}/api/v1/brain/conversations/${conversationId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(read.status).toBe(200);
  expect(Conversation.parse(await read.json()).messages.map((m) => m.content)).toEqual([
    'One?',
    'First.',
    'Two?',
    'Hello from the model.',
  ]);
});
