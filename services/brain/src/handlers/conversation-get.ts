/**
 * brain.conversations.get (GET /api/v1/brain/conversations/:id, scope `chat`): a conversation's
 * messages, oldest first, for the agent that started it only. Another agent's (even of the same
 * owner) or another owner's is 404, the same answer as for one that never existed.
 */
import { AppError, BrainEndpoints } from '@pag/contracts';
import { handle } from '@pag/kit';
import type { BrainHandlerDeps } from './brain-deps.ts';

export const conversationGet = handle(
  BrainEndpoints.conversationGet,
  async (caller, { params }, { stores }: BrainHandlerDeps) => {
    const conversation = await stores.conversations.find(
      { accountId: caller.accountId, agentId: caller.agentId },
      params.id,
    );
    if (conversation === null) throw new AppError('NOT_FOUND', `No conversation ${params.id} of this agent.`);
    return conversation;
  },
);
