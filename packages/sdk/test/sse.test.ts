/**
 * The event-stream reader on bodies cut anywhere (mid-line, mid-character, CRLF line ends), as a
 * network delivers them, and the chat stream's end: a `done`, an `error` thrown as PagError, or a
 * stream cut before its `done`.
 */
import { describe, expect, test } from '@jest/globals';
import { PagClient } from '../src/client.ts';
import { serverSentEvents } from '../src/sse.ts';
import { Transport } from '../src/transport.ts';

function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(chunks.join(''));
  // Cut the bytes at the chunk boundaries, and once more inside the first multi-byte character.
  const cuts = [0];
  let at = 0;
  for (const chunk of chunks) {
    at += new TextEncoder().encode(chunk).length;
    cuts.push(at);
  }
  const split = bytes.findIndex((byte) => byte >= 0xc0);
  if (split > 0) cuts.push(split + 1);
  cuts.sort((a, b) => a - b);
  return new ReadableStream({
    start(controller) {
      for (let i = 1; i < cuts.length; i += 1) controller.enqueue(bytes.slice(cuts[i - 1], cuts[i]));
      controller.close();
    },
  });
}

async function all(stream: ReadableStream<Uint8Array>) {
  const events = [];
  for await (const event of serverSentEvents(stream)) events.push(event);
  return events;
}

describe('serverSentEvents', () => {
  test('events cut anywhere are whole, comments skipped, CRLF read as LF', async () => {
    const events = await all(
      body(
        ': keep-alive\n\nevent: st',
        'art\ndata: {"conversationId":"c1"}\r\n\r\nevent: delta\ndata: {"text":"caf',
        'é"}\n\n',
      ),
    );
    expect(events).toEqual([
      { event: 'start', data: { conversationId: 'c1' } },
      { event: 'delta', data: { text: 'café' } },
    ]);
  });

  test('a last event without its blank line still counts; data lines join with a newline', async () => {
    expect(await all(body('data: {"a":\ndata: 1}'))).toEqual([{ event: 'message', data: { a: 1 } }]);
  });

  test('data that is not JSON is UNEXPECTED_RESPONSE', async () => {
    await expect(all(body('event: delta\ndata: {oops\n\n'))).rejects.toMatchObject({
      code: 'UNEXPECTED_RESPONSE',
    });
  });
});

describe('chatStream', () => {
  const client = (text: string) =>
    new PagClient(
      new Transport('http://gateway.test', null, {
        fetch: async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }),
      }),
    );

  test('an error event is thrown as the PagError it carries', async () => {
    const stream = client(
      'event: start\ndata: {"conversationId":"c1","model":"m"}\n\nevent: error\ndata: {"error":{"code":"UPSTREAM_TIMEOUT","message":"Late.","hint":"Retry.","requestId":"r1"}}\n\n',
    ).chatStream({ message: 'hi' });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of stream) seen.push(event.event);
      })(),
    ).rejects.toMatchObject({ code: 'UPSTREAM_TIMEOUT', hint: 'Retry.', requestId: 'r1' });
    expect(seen).toEqual(['start']);
  });

  test('a stream cut before done is STREAM_INCOMPLETE', async () => {
    const stream = client('event: delta\ndata: {"text":"par"}\n\n').chatStream({ message: 'hi' });
    await expect(
      (async () => {
        for await (const _ of stream);
      })(),
    ).rejects.toMatchObject({ code: 'STREAM_INCOMPLETE' });
  });
});
