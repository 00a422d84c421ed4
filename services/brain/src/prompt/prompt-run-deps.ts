/** What a trigger run needs beyond the chat's runtime, built once by service.ts. */
import type { Bus } from '@pag/kit';
import type { ChatDeps } from '../chat/answer-chat.ts';

export interface PromptRunSettings {
  /** PROMPT_RUN_TIMEOUT_MS: the whole run, every model and service call included. */
  timeoutMs: number;
  /** PROMPT_PROXY_TIMEOUT_MS: the longest wait for one proxy.calls.forward answer. */
  proxyCallTimeoutMs: number;
}

export interface PromptRunDeps extends ChatDeps {
  /** For the run's service calls (proxy.calls.forward). */
  bus: Bus;
  promptRun: PromptRunSettings;
}
