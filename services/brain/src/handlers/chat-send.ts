/**
 * brain.chat.send (POST /api/v1/brain/chat, scope `chat`, re-checked by serveEndpoints): the
 * brain's reply to an agent's message, from the owner's language-model provider or the offline
 * brain; streamed as server-sent events when the agent asked for them (chat/answer-chat.ts).
 */
import { BrainEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import { answerChat } from '../chat/answer-chat.ts';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const chatSend = handle(BrainEndpoints.chatSend, (caller, { body }, deps: BrainHandlerDeps) =>
  answerChat(caller, body, deps),
);
