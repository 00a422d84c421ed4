/**
 * A local OpenAI-compatible chat-completions server for the chat tests (node:http on a loopback
 * port the system picks). It records every request (path, headers, body) and answers each with
 * the next scripted behaviour, else the default: a streamed reply "Hello from the model." in
 * three chunks with usage; `callTools` streams tool calls instead (a trigger run's call_service).
 * The brain's real `openai` client talks to it.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LlmMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
}

export interface LlmRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: {
    model: string;
    messages: LlmMessage[];
    stream?: boolean;
    tools?: { type: 'function'; function: { name: string; parameters: Record<string, unknown> } }[];
  };
}

export type Behaviour = (res: ServerResponse, request: LlmRequest) => void | Promise<void>;

export const DEFAULT_CHUNKS = ['Hello', ' from', ' the model.'];
export const FAKE_MODEL = 'fake-model-2026-01';

/** A streamed completion: each chunk a delta; before a chunk, `before[i]` is awaited when given. */
export function streamReply(
  chunks: readonly string[] = DEFAULT_CHUNKS,
  options: { before?: Promise<void>[]; usage?: { prompt_tokens: number; completion_tokens: number } } = {},
): Behaviour {
  return async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    for (const [i, text] of chunks.entries()) {
      await options.before?.[i];
      send({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 0,
        model: FAKE_MODEL,
        choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
      });
    }
    send({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 0,
      model: FAKE_MODEL,
      choices: [],
      usage: options.usage ?? { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
    });
    res.end('data: [DONE]\n\n');
  };
}

/**
 * A streamed answer asking for tool calls (ids call_1, call_2, …), each call's arguments in two
 * deltas as real providers split them, with finish_reason tool_calls.
 */
export function callTools(calls: readonly { name: string; arguments: unknown }[]): Behaviour {
  return (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (delta: unknown, finish: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({
          id: 'chatcmpl-2',
          object: 'chat.completion.chunk',
          created: 0,
          model: FAKE_MODEL,
          choices: [{ index: 0, delta, finish_reason: finish }],
        })}\n\n`,
      );
    for (const [index, call] of calls.entries()) {
      const text = JSON.stringify(call.arguments);
      const half = Math.floor(text.length / 2);
      send({
        tool_calls: [
          {
            index,
            id: `call_${index + 1}`,
            type: 'function',
            function: { name: call.name, arguments: text.slice(0, half) },
          },
        ],
      });
      send({ tool_calls: [{ index, function: { arguments: text.slice(half) } }] });
    }
    send({}, 'tool_calls');
    res.end('data: [DONE]\n\n');
  };
}

/** An HTTP error; retry-after-ms keeps the client's retry pause short. */
export function failWith(status: number): Behaviour {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after-ms': '10' });
    res.end(
      JSON.stringify({
        error: { message: `fake failure ${status} for key sk-should-never-leak`, type: 'x' },
      }),
    );
  };
}

/** Never answers (the socket is closed when the server closes). */
export const hang: Behaviour = () => {};

export class FakeLlm implements AsyncDisposable {
  readonly requests: LlmRequest[] = [];
  readonly #server: Server;
  readonly #script: Behaviour[] = [];
  readonly #arrivals: ((request: LlmRequest) => void)[] = [];

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<FakeLlm> {
    let llm: FakeLlm | undefined;
    const server = createServer((req, res) => {
      void llm?.answer(req, res);
    });
    llm = new FakeLlm(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return llm;
  }

  /** The base URL, as CHAT_BASE_URL takes it. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  /** The next requests get these behaviours, in order. */
  script(...behaviours: Behaviour[]): void {
    this.#script.push(...behaviours);
  }

  /** Resolves when the next request arrives. */
  nextArrival(): Promise<LlmRequest> {
    return new Promise((resolve) => this.#arrivals.push(resolve));
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request: LlmRequest = {
      path: req.url ?? '',
      headers: req.headers,
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as LlmRequest['body'],
    };
    this.requests.push(request);
    this.#arrivals.shift()?.(request);
    await (this.#script.shift() ?? streamReply())(res, request);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
