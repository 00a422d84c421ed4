/**
 * brain.prompt.run: a trigger's prompt carried out as its creating agent, for one run
 * (docs/adr/0051), in this order:
 * 1. the owner's cap on chats in progress (chat/owner-gate.ts, 429 RATE_LIMITED over it): a run
 *    takes the provider like a chat does;
 * 2. the provider, as for the chat (chat/chat-providers.ts: the owner's, the deployment's, none);
 * 3. retrieval for the prompt (chat/retrieve.ts): the persona applying to the agent, the
 *    identity, the best knowledge documents and memory entries, all of the account the request
 *    names and nothing else;
 * 4. with a provider: the model with the `call_service` tool (run-with-model.ts); without one: the
 *    offline brain's quotes, saying that no model is configured and that the listed services
 *    were not consulted;
 * 5. the output kept as at most TRIGGER_OUTPUT_MAX_BYTES (domain/run-text.ts) and, when the
 *    trigger asks for it, written as one memory entry of the agent.
 * The run is not a conversation: nothing is stored in conversations. A provider's failure is the
 * run's failure with the chat's codes (502 UPSTREAM_ERROR, 504 UPSTREAM_TIMEOUT), which the
 * trigger service records on the run; never an offline answer in its place.
 */
import type { PromptRunRequest, PromptRunResult } from '@pag/contracts';
import type { ServiceCaller } from '@pag/kit';
import { quoteOffline } from '../chat/answer-chat.ts';
import { retrieve } from '../chat/retrieve.ts';
import { notConsultedNote, runOutput } from '../domain/run-text.ts';
import type { ServiceCallRecord } from './call-service.ts';
import type { PromptRunDeps } from './prompt-run-deps.ts';
import { runWithModel } from './run-with-model.ts';

export async function runPrompt(
  caller: ServiceCaller,
  request: PromptRunRequest,
  deps: PromptRunDeps,
): Promise<PromptRunResult> {
  const deadline = Date.now() + deps.promptRun.timeoutMs;
  const release = deps.chat.gate.enter(request.accountId);
  try {
    const provider = await deps.chat.providers.resolve(request.accountId);
    const retrieved = await retrieve(
      deps,
      { accountId: request.accountId, agentId: request.agentId, requestId: caller.requestId },
      request.prompt,
    );
    const serviceCalls: ServiceCallRecord[] = [];
    let text: string;
    let model: string;
    if (provider === null) {
      const offline = await quoteOffline(retrieved.passages, async () => {});
      text = `${notConsultedNote(request.services)}${offline.text}`;
      model = offline.model;
    } else {
      const answer = await runWithModel(provider, request, retrieved, serviceCalls, {
        ...deps,
        deadline,
        requestId: caller.requestId,
      });
      text = answer.text;
      model = answer.model;
    }
    const output = runOutput(text);
    const memoryId = request.saveOutputToMemory
      ? (await deps.stores.memory.write(request.accountId, request.agentId, output)).id
      : null;
    caller.logger.info(
      {
        accountId: request.accountId,
        triggerId: request.triggerId,
        runId: request.runId,
        model,
        serviceCalls: serviceCalls.length,
        memoryId,
      },
      'trigger prompt run',
    );
    return {
      output,
      model,
      provider: provider === null ? 'offline' : 'openai-compatible',
      memoryId,
      serviceCalls,
    };
  } finally {
    release();
  }
}
