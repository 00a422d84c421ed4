/**
 * brain.owner-provider.get|set|clear (the dashboard's LLM provider page, through the auth
 * service): the owner's own OpenAI-compatible provider, its key sealed at rest and never shown
 * (chat/chat-providers.ts). Clearing it makes the deployment's provider (or the offline brain)
 * answer again.
 */
import { BrainOwnerEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const ownerProviderGet = handle(
  BrainOwnerEndpoints.providerGet,
  (_caller, { accountId }, { chat }: BrainHandlerDeps) => chat.providers.settings(accountId),
);

export const ownerProviderSet = handle(
  BrainOwnerEndpoints.providerSet,
  (_caller, input, { chat }: BrainHandlerDeps) => chat.providers.set(input),
);

export const ownerProviderClear = handle(
  BrainOwnerEndpoints.providerClear,
  (_caller, { accountId }, { chat }: BrainHandlerDeps) => chat.providers.clear(accountId),
);
