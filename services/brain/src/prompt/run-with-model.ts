/**
 * A trigger run with a language model: the chat's prompt (domain/chat-prompt.ts: the persona's
 * soul_content as the system message, the identity and the passages, then the run's instructions
 * and the prompt), and the `call_service` tool when the trigger lists services (call-service.ts).
 *
 * The loop is bounded (docs/adr/0051): at most MAX_TOOL_ROUNDS answers of the model that ask for
 * calls, MAX_SERVICE_CALLS calls in all; the model's answer after the last round is asked for
 * without the tool, so it must answer with what it has. Every model call is the chat's
 * (chat/provider-client.ts: CHAT_TIMEOUT_MS each, CHAT_MAX_RETRIES, the 502/504 mapping), all of
 * them and the service calls within the run's deadline (PROMPT_RUN_TIMEOUT_MS; past it 504
 * UPSTREAM_TIMEOUT). A service's answer is shown to the model cut to a quarter of the context
 * budget (CHAT_CONTEXT_TOKENS, about 4 characters a token).
 */
import type { PromptRunRequest } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import type { ChatDeps } from '../chat/answer-chat.ts';
import type { ResolvedProvider } from '../chat/chat-providers.ts';
import type { ProviderMessage } from '../chat/provider-client.ts';
import { complete } from '../chat/provider-client.ts';
import type { Retrieved } from '../chat/retrieve.ts';
import { buildPrompt } from '../domain/chat-prompt.ts';
import { runInstructions } from '../domain/run-text.ts';
import type { ServiceCallRecord } from './call-service.ts';
import { CALL_SERVICE, callService, callServiceTool } from './call-service.ts';
import type { PromptRunDeps } from './prompt-run-deps.ts';

/** Answers of the model that may ask for service calls; the next one must answer. */
export const MAX_TOOL_ROUNDS = 8;
/** Service calls one run may make in all. */
export const MAX_SERVICE_CALLS = 20;

export interface RunContext extends PromptRunDeps {
  /** When the run must be done (ms since the epoch). */
  deadline: number;
  requestId: string;
}

export async function runWithModel(
  provider: ResolvedProvider,
  request: PromptRunRequest,
  retrieved: Retrieved,
  made: ServiceCallRecord[],
  context: RunContext,
): Promise<{ text: string; model: string }> {
  const limits = { maxToolRounds: MAX_TOOL_ROUNDS, maxServiceCalls: MAX_SERVICE_CALLS };
  const config: ChatDeps['chat']['config'] = context.chat.config;
  const prompt = buildPrompt({
    ...retrieved,
    history: [],
    message: request.prompt,
    instructions: runInstructions(request, limits),
    budgetTokens: config.contextTokens,
    now: new Date(),
  });
  const messages: ProviderMessage[] = [...prompt.messages];
  const left = () => context.deadline - Date.now();
  const services = {
    bus: context.bus,
    run: request,
    requestId: context.requestId,
    timeoutMs: () => Math.max(1, Math.min(context.promptRun.proxyCallTimeoutMs, left())),
    maxCalls: MAX_SERVICE_CALLS,
    resultMaxChars: config.contextTokens,
  };
  const tools = request.services.length === 0 ? [] : [callServiceTool(request.services)];
  for (let round = 0; ; round += 1) {
    if (left() <= 0) throw runTimeout(context.promptRun.timeoutMs);
    const offered = round < MAX_TOOL_ROUNDS ? tools : [];
    const completion = await complete(provider, messages, {
      timeoutMs: Math.min(config.timeoutMs, left()),
      maxRetries: config.maxRetries,
      onDelta: async () => {},
      tools: offered,
    });
    if (offered.length === 0 || completion.toolCalls.length === 0)
      return { text: completion.text, model: completion.model };
    messages.push({ role: 'assistant', content: completion.text || null, toolCalls: completion.toolCalls });
    for (const call of completion.toolCalls) {
      const content =
        call.name === CALL_SERVICE
          ? await callService(services, call, made)
          : `Refused (NOT_FOUND): there is no tool ${call.name}; the one tool is ${CALL_SERVICE}.`;
      messages.push({ role: 'tool', toolCallId: call.id, content });
    }
  }
}

function runTimeout(timeoutMs: number): AppError {
  return new AppError('UPSTREAM_TIMEOUT', `The run did not finish within ${timeoutMs} ms.`, {
    expose: true,
    hint: 'The model or the services it called were slow; the owner may shorten the task or choose a faster model.',
  });
}
