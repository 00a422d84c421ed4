/**
 * Conversations with the brain and their messages. A conversation belongs to the account and the
 * agent that started it (agent null: a token without an agent); it is found only by that same
 * pair, so another agent, even of the same owner, or another owner, gets nothing (the handlers
 * answer 404). A turn (the agent's message and the brain's reply) is stored in one transaction
 * once the reply is complete, so a failed reply leaves no half turn behind.
 */
import type { ChatSources, ChatUsage, Conversation } from '@pag/contracts';
import { newId } from '../domain/resource-id.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface ConversationOwner {
  accountId: string;
  agentId: string | null;
}

/** One earlier message, as the model gets it again. */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface Turn {
  /** A new conversation's id is chosen before the reply (the stream's start event names it). */
  conversationId: string;
  isNew: boolean;
  message: string;
  reply: string;
  model: string;
  sources: ChatSources;
  usage: ChatUsage | null;
}

export class ConversationStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** Whether the conversation exists and belongs to this account and agent. */
  async owns(owner: ConversationOwner, id: string): Promise<boolean> {
    const row = await this.#prisma.conversation.findFirst({
      where: { id, accountId: owner.accountId, agentId: owner.agentId },
      select: { id: true },
    });
    return row !== null;
  }

  /** The conversation's messages, oldest first, for the model (only the owner's: see owns). */
  async history(owner: ConversationOwner, id: string): Promise<HistoryMessage[]> {
    const rows = await this.#prisma.conversationMessage.findMany({
      where: { conversationId: id, accountId: owner.accountId, conversation: { agentId: owner.agentId } },
      orderBy: { seq: 'asc' },
      select: { role: true, content: true },
    });
    return rows.map((row) => ({
      role: row.role === 'assistant' ? 'assistant' : 'user',
      content: row.content,
    }));
  }

  /** The whole conversation, or null when it is not this account's and agent's. */
  async find(owner: ConversationOwner, id: string): Promise<Conversation | null> {
    const row = await this.#prisma.conversation.findFirst({
      where: { id, accountId: owner.accountId, agentId: owner.agentId },
      include: { messages: { orderBy: { seq: 'asc' } } },
    });
    if (row === null) return null;
    return {
      id: row.id,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      messages: row.messages.map((message) => ({
        role: message.role === 'assistant' ? 'assistant' : 'user',
        content: message.content,
        model: message.model,
        sources: (message.sources as ChatSources | null) ?? null,
        createdAt: message.createdAt.toISOString(),
      })),
    };
  }

  /** Stores the agent's message and the reply together; answers the reply's time. */
  async addTurn(owner: ConversationOwner, turn: Turn): Promise<Date> {
    const now = new Date();
    await this.#prisma.$transaction(async (tx) => {
      if (turn.isNew) {
        await tx.conversation.create({
          data: {
            id: turn.conversationId,
            accountId: owner.accountId,
            agentId: owner.agentId,
            createdAt: now,
          },
        });
      }
      await tx.conversation.update({ where: { id: turn.conversationId }, data: { updatedAt: now } });
      // Two statements, so seq (insertion order) puts the message before its reply.
      await tx.conversationMessage.create({
        data: {
          id: newId('message'),
          conversationId: turn.conversationId,
          accountId: owner.accountId,
          role: 'user',
          content: turn.message,
          createdAt: now,
        },
      });
      await tx.conversationMessage.create({
        data: {
          id: newId('message'),
          conversationId: turn.conversationId,
          accountId: owner.accountId,
          role: 'assistant',
          content: turn.reply,
          model: turn.model,
          sources: turn.sources,
          usage: turn.usage ?? undefined,
          createdAt: now,
        },
      });
    });
    return now;
  }
}
