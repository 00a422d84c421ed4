/**
 * An owner's personas, each marked `active` when it applies to the calling agent
 * (domain/persona-choice.ts). Listed oldest first, so the list keeps its order as personas are added.
 */
import type { Persona } from '@pag/contracts';
import { applyingPersonaId } from '../domain/persona-choice.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export class PersonaStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** Every persona of the account, with `active` set for the one applying to the calling agent. */
  async list(accountId: string, callerAgentId: string | null): Promise<Persona[]> {
    const rows = await this.#prisma.persona.findMany({
      where: { accountId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, name: true, description: true, soulContent: true, agentId: true },
    });
    const activeId = applyingPersonaId(rows, callerAgentId);
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      soul_content: row.soulContent,
      active: row.id === activeId,
    }));
  }

  /** The persona applying to the calling agent (active), or null when none does. */
  async applying(accountId: string, callerAgentId: string | null): Promise<Persona | null> {
    const agents = callerAgentId === null ? [] : [callerAgentId];
    // At most two rows: the agent's own persona and the default (one each, by the unique index).
    const rows = await this.#prisma.persona.findMany({
      where: { accountId, OR: [{ agentId: null }, { agentId: { in: agents } }] },
      select: { id: true, name: true, description: true, soulContent: true, agentId: true },
    });
    const row = rows.find((candidate) => candidate.id === applyingPersonaId(rows, callerAgentId));
    if (row === undefined) return null;
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      soul_content: row.soulContent,
      active: true,
    };
  }
}
