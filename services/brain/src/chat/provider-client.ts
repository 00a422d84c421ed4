/**
 * One chat completion from an OpenAI-compatible provider, streamed, through the official `openai`
 * client (docs/adr/0046): each text delta is handed on as it arrives; the reply is their
 * concatenation, with the model the provider named and its token usage. When tools are offered
 * (a trigger run's call_service, prompt/run-with-model.ts), the tool calls the model asks for
 * arrive as deltas too and are put together by their index.
 *
 * Retries are the client's own (maxRetries = CHAT_MAX_RETRIES): it retries 408, 409, 429 and 5xx
 * answers and failed connections before any of the reply has arrived, with exponential backoff
 * from 0.5 s to 8 s and up to 25 % jitter, honouring the provider's Retry-After (up to 60 s);
 * see retryRequest and calculateDefaultRetryTimeoutMillis in node_modules/openai/client.mjs.
 * A deadline of CHAT_TIMEOUT_MS covers the whole call, retries and the streamed body included
 * (the client's own `timeout` is per attempt and stops at the response head).
 *
 * Failures become the catalogue's codes with a message naming the provider's host and status,
 * never the key (nor the provider's own error text, which may quote it): an HTTP error or a
 * broken stream is 502 UPSTREAM_ERROR, the deadline or the client's connect timeout 504
 * UPSTREAM_TIMEOUT, a requester that went away CLIENT_CLOSED_REQUEST. Never a fallback.
 *
 * The client is loaded on the first completion, not at start-up: `openai` is about 7 MB of heap
 * that a stack whose owners never chat would keep resident for nothing (docs/adr/0080).
 */
import type { ChatUsage } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatMessage } from '../domain/chat-prompt.ts';

export interface ProviderEndpoint {
  baseUrl: string;
  model: string;
  /** null: none (a local server without keys): no Authorization header is sent. */
  apiKey: string | null;
}

/** A function the model may call (OpenAI's `tools`), its parameters a JSON Schema. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A call the model asked for: its id (to answer it), the function, the arguments as JSON text. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** The chat's messages, and for a tool loop the model's tool calls and their answers. */
export type ProviderMessage =
  | ChatMessage
  | { role: 'assistant'; content: string | null; toolCalls: readonly ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface CompletionOptions {
  timeoutMs: number;
  maxRetries: number;
  /** Aborts when the requester went away. */
  signal?: AbortSignal | undefined;
  onDelta(text: string): Promise<void>;
  /** Functions the model may call; none: a plain completion. */
  tools?: readonly ToolDefinition[] | undefined;
}

export interface Completion {
  text: string;
  model: string;
  usage: ChatUsage | null;
  /** The provider's HTTP status (200 once the stream started). */
  status: number;
  /** What the model asked to call (only when tools were offered), in its order. */
  toolCalls: ToolCall[];
}

type OpenAIClass = typeof OpenAI;
let loading: Promise<OpenAIClass> | undefined;
/** The `openai` client class, imported once, on first use. */
function openAIClient(): Promise<OpenAIClass> {
  loading ??= import('openai').then((module) => module.default);
  return loading;
}

export async function complete(
  provider: ProviderEndpoint,
  messages: readonly ProviderMessage[],
  options: CompletionOptions,
): Promise<Completion> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? deadline : AbortSignal.any([deadline, options.signal]);
  const OpenAI = await openAIClient();
  const client = new OpenAI({
    baseURL: provider.baseUrl,
    // The client insists on a key and would read OPENAI_API_KEY (and OPENAI_ORG_ID, …) from the
    // environment otherwise; every value is given here, and a keyless provider gets no header.
    apiKey: provider.apiKey ?? 'no-key',
    organization: null,
    project: null,
    defaultHeaders: provider.apiKey === null ? { Authorization: null } : {},
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    logLevel: 'off',
  });
  const host = hostOf(provider.baseUrl);
  let text = '';
  let model = provider.model;
  let usage: ChatUsage | null = null;
  const toolCalls: ToolCall[] = [];
  const tools = options.tools ?? [];
  try {
    const stream = await client.chat.completions.create(
      {
        model: provider.model,
        messages: messages.map(toWire),
        stream: true,
        stream_options: { include_usage: true },
        ...(tools.length === 0
          ? {}
          : { tools: tools.map((tool) => ({ type: 'function' as const, function: tool })) }),
      },
      { signal },
    );
    for await (const chunk of stream) {
      if (chunk.model) model = chunk.model;
      if (chunk.usage) {
        usage = { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens };
      }
      const delta = chunk.choices[0]?.delta;
      for (const part of delta?.tool_calls ?? []) {
        const call = toolCalls[part.index] ?? { id: '', name: '', arguments: '' };
        toolCalls[part.index] = call;
        call.id += part.id ?? '';
        call.name += part.function?.name ?? '';
        call.arguments += part.function?.arguments ?? '';
      }
      if (delta?.content) {
        text += delta.content;
        await options.onDelta(delta.content);
      }
    }
  } catch (error) {
    throw providerFailure(OpenAI, error, host, options.timeoutMs, deadline, options.signal);
  }
  // A sparse index (a provider skipping one) leaves a hole; only calls that arrived count.
  return { text, model, usage, status: 200, toolCalls: toolCalls.filter((call) => call !== undefined) };
}

function toWire(message: ProviderMessage): ChatCompletionMessageParam {
  if (message.role === 'tool')
    return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  if ('toolCalls' in message) {
    return {
      role: 'assistant',
      content: message.content,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    };
  }
  return message;
}

function providerFailure(
  OpenAI: OpenAIClass,
  error: unknown,
  host: string,
  timeoutMs: number,
  deadline: AbortSignal,
  requester: AbortSignal | undefined,
): AppError {
  if (error instanceof AppError) return error;
  if (requester?.aborted && !deadline.aborted)
    return new AppError('CLIENT_CLOSED_REQUEST', 'The caller went away before the reply was complete.');
  if (deadline.aborted || error instanceof OpenAI.APIConnectionTimeoutError)
    return new AppError(
      'UPSTREAM_TIMEOUT',
      `The language-model provider at ${host} did not answer within ${timeoutMs} ms.`,
      {
        cause: error,
        expose: true,
        hint: 'Retry later; the owner or operator may choose a faster model or provider.',
      },
    );
  if (error instanceof OpenAI.APIConnectionError)
    return new AppError('UPSTREAM_ERROR', `The language-model provider at ${host} could not be reached.`, {
      cause: error,
      expose: true,
      hint: 'Check the provider’s base URL; retry later.',
    });
  const status = error instanceof OpenAI.APIError ? error.status : undefined;
  return new AppError(
    'UPSTREAM_ERROR',
    status === undefined
      ? `The language-model provider at ${host} failed while answering.`
      : `The language-model provider at ${host} failed: HTTP ${status}.`,
    {
      cause: error,
      expose: true,
      hint:
        status === 401 || status === 403
          ? 'The provider refused the API key; the owner or operator must set a valid one.'
          : status === 404
            ? 'The provider does not know the model or path; check the base URL and model name.'
            : 'The language-model provider failed; retry later.',
    },
  );
}

function hostOf(baseUrl: string): string {
  return new URL(baseUrl).host;
}
