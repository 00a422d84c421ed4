/**
 * One chat message answered (brain.chat.send), in this order:
 * 1. the owner's cap on chats in progress (owner-gate.ts: 429 over it);
 * 2. a conversationId must name a conversation of this account AND agent (404 otherwise, the
 *    same answer as for one that never existed); without one, a new conversation's id is chosen;
 * 3. the provider (chat-providers.ts: the owner's, the deployment's, or none = offline);
 * 4. retrieval (retrieve.ts), together with the conversation's history: the persona applying to
 *    the caller, the owner's identity, and the knowledge documents and memory entries best
 *    matching the message (search.ts, the same search as the knowledge base's ?q=);
 * 5. the reply, streamed as `start` {conversationId, model} then `delta` {text} events when the
 *    requester asked for a stream: from the provider (within the token budget, chat-prompt.ts),
 *    or offline (the best passages quoted, offline-reply.ts);
 * 6. the message and the reply stored together (one transaction), then one `chat.reply` audit
 *    event (also for a failed reply, with its code).
 * A provider's failure is the reply's failure (502/504): never an offline answer in its place.
 */
import type { ChatReply, ChatRequest } from '@pag/contracts';
import { AppError } from '@pag/contracts';
import type { AccountCaller } from '@pag/kit';
import type { Passage, PromptInput } from '../domain/chat-prompt.ts';
import { buildPrompt } from '../domain/chat-prompt.ts';
import { OFFLINE_MODEL, offlineReplyParts } from '../domain/offline-reply.ts';
import { newId } from '../domain/resource-id.ts';
import type { DefaultPersona } from '../identity/default-persona.ts';
import type { OwnerIdentity } from '../identity/owner-identity.ts';
import type { BrainStores } from '../store/brain-stores.ts';
import type { ChatAudit } from './chat-audit.ts';
import type { ChatProviders, ResolvedProvider } from './chat-providers.ts';
import type { OwnerGate } from './owner-gate.ts';
import { complete } from './provider-client.ts';
import { retrieve } from './retrieve.ts';

/** How many passages the offline brain quotes at most. */
export const OFFLINE_QUOTES = 5;

/** What chat needs beyond the stores and the identity, built once by service.ts. */
export interface ChatRuntime {
  providers: ChatProviders;
  gate: OwnerGate;
  audit: ChatAudit;
  config: { timeoutMs: number; maxRetries: number; contextTokens: number };
}

export interface ChatDeps {
  stores: BrainStores;
  identity: OwnerIdentity;
  defaultPersona: DefaultPersona;
  chat: ChatRuntime;
}

export async function answerChat(
  caller: AccountCaller,
  request: ChatRequest,
  deps: ChatDeps,
): Promise<ChatReply> {
  const release = deps.chat.gate.enter(caller.accountId);
  try {
    const owner = { accountId: caller.accountId, agentId: caller.agentId };
    const isNew = request.conversationId === undefined;
    if (
      request.conversationId !== undefined &&
      !(await deps.stores.conversations.owns(owner, request.conversationId))
    )
      throw new AppError('NOT_FOUND', `No conversation ${request.conversationId} of this agent.`);
    const conversationId = request.conversationId ?? newId('conversation');
    const provider = await deps.chat.providers.resolve(caller.accountId);
    return await reply(caller, request.message, { conversationId, isNew, provider }, deps);
  } finally {
    release();
  }
}

async function reply(
  caller: AccountCaller,
  message: string,
  turn: { conversationId: string; isNew: boolean; provider: ResolvedProvider | null },
  deps: ChatDeps,
): Promise<ChatReply> {
  const started = performance.now();
  const { provider, conversationId } = turn;
  const owner = { accountId: caller.accountId, agentId: caller.agentId };
  let model = provider?.model ?? OFFLINE_MODEL;
  const outcome = {
    requestId: caller.requestId,
    accountId: caller.accountId,
    clientId: caller.clientId,
    agentId: caller.agentId,
    provider: provider === null ? ('offline' as const) : ('openai-compatible' as const),
    providerSource: provider?.source ?? null,
  };
  try {
    const [{ persona, identity, passages }, history] = await Promise.all([
      retrieve(deps, caller, message),
      turn.isNew ? [] : deps.stores.conversations.history(owner, conversationId),
    ]);

    const stream = caller.stream;
    await stream?.send('start', { conversationId, model });
    const onDelta = async (text: string) => {
      await stream?.send('delta', { text });
    };

    const generated =
      provider === null
        ? await quoteOffline(passages, onDelta)
        : await askProvider(
            provider,
            { persona, identity, passages, history, message },
            onDelta,
            stream?.signal,
            deps,
          );
    const { text, usage, sources } = generated;
    model = generated.model;
    const createdAt = await deps.stores.conversations.addTurn(owner, {
      conversationId,
      isNew: turn.isNew,
      message,
      reply: text,
      model,
      sources,
      usage,
    });
    deps.chat.audit.record({
      ...outcome,
      conversationId,
      model,
      usage,
      decision: 'allowed',
      reason: null,
      latencyMs: performance.now() - started,
    });
    return {
      conversationId,
      reply: text,
      model,
      provider: outcome.provider,
      sources,
      usage,
      createdAt: createdAt.toISOString(),
    };
  } catch (error) {
    deps.chat.audit.record({
      ...outcome,
      conversationId: turn.isNew ? null : conversationId,
      model,
      usage: null,
      decision: 'error',
      reason: error instanceof AppError ? error.code : 'INTERNAL_ERROR',
      latencyMs: performance.now() - started,
    });
    throw error;
  }
}

export interface Generated {
  text: string;
  model: string;
  usage: ChatReply['usage'];
  sources: ChatReply['sources'];
}

/** The offline brain: the best passages quoted (offline-reply.ts), streamed part by part. */
export async function quoteOffline(
  passages: Passage[],
  onDelta: (text: string) => Promise<void>,
): Promise<Generated> {
  const quoted = passages.slice(0, OFFLINE_QUOTES);
  const parts = offlineReplyParts(quoted);
  for (const part of parts) await onDelta(part);
  return {
    text: parts.join(''),
    model: OFFLINE_MODEL,
    usage: null,
    sources: {
      knowledge: quoted.filter((p) => p.source === 'knowledge').map((p) => p.id),
      memory: quoted.filter((p) => p.source === 'memory').map((p) => p.id),
    },
  };
}

/** The provider's completion of the prompt built within the token budget (chat-prompt.ts). */
async function askProvider(
  provider: ResolvedProvider,
  input: Omit<PromptInput, 'budgetTokens' | 'now'>,
  onDelta: (text: string) => Promise<void>,
  signal: AbortSignal | undefined,
  deps: ChatDeps,
): Promise<Generated> {
  const prompt = buildPrompt({ ...input, budgetTokens: deps.chat.config.contextTokens, now: new Date() });
  const completion = await complete(provider, prompt.messages, {
    timeoutMs: deps.chat.config.timeoutMs,
    maxRetries: deps.chat.config.maxRetries,
    signal,
    onDelta,
  });
  return { text: completion.text, model: completion.model, usage: completion.usage, sources: prompt.sources };
}
