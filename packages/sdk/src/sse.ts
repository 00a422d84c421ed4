/**
 * Server-sent events (the HTML standard's event-stream format) from a fetch body, as an async
 * iterator of `{ event, data }` with data parsed as JSON, which is what the gateway sends.
 */
import { PagError, SDK_CODES } from './errors.ts';

export interface ServerSentEvent {
  event: string;
  data: unknown;
}

export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replaceAll('\r\n', '\n');
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event !== null) yield event;
        end = buffer.indexOf('\n\n');
      }
    }
    const last = parseEvent(buffer);
    if (last !== null) yield last;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function parseEvent(block: string): ServerSentEvent | null {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  const text = data.join('\n');
  try {
    return { event, data: JSON.parse(text) };
  } catch (cause) {
    throw new PagError({
      code: SDK_CODES.UNEXPECTED_RESPONSE,
      message: `event ${event} carries data that is not JSON: ${text.slice(0, 200)}`,
      cause,
    });
  }
}
