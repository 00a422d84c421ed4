/** What the brain's handlers need, built once by service.ts. */
import type { Bus } from '@pag/kit';
import type { ChatRuntime } from '../chat/answer-chat.ts';
import type { DefaultPersona } from '../identity/default-persona.ts';
import type { OwnerIdentity } from '../identity/owner-identity.ts';
import type { PromptRunSettings } from '../prompt/prompt-run-deps.ts';
import type { BrainStores } from '../store/brain-stores.ts';

export interface BrainHandlerDeps {
  stores: BrainStores;
  identity: OwnerIdentity;
  chat: ChatRuntime;
  /** Gives an account met for the first time its default persona (before reading personas). */
  defaultPersona: DefaultPersona;
  /** For a trigger run's service calls (proxy.calls.forward). */
  bus: Bus;
  promptRun: PromptRunSettings;
}
