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
    const [rows, defaultRow, assignment] = await Promise.all([
      this.#prisma.persona.findMany({
        where: { accountId },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: { id: true, name: true, description: true, soulContent: true },
      }),
      this.#prisma.personaDefault.findUnique({ where: { accountId } }),
      callerAgentId === null
        ? null
        : this.#prisma.personaAssignment.findUnique({
            where: { accountId_agentId: { accountId, agentId: callerAgentId } },
          }),
    ]);
    const choices = [
      ...(defaultRow === null ? [] : [{ id: defaultRow.personaId, agentId: null }]),
      ...(assignment === null ? [] : [{ id: assignment.personaId, agentId: assignment.agentId }]),
    ];
    const activeId = applyingPersonaId(choices, callerAgentId);
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      description: row.description,
      soul_content: row.soulContent,
      active: row.id === activeId,
    }));
  }

  /**
   * The persona applying to the calling agent (active), or null when none does: its own
   * (persona_assignments), else the owner's default (persona_defaults). One statement.
   */
  async applying(accountId: string, callerAgentId: string | null): Promise<Persona | null> {
    const [row] = await this.#prisma.$queryRaw<
      { id: string; name: string; description: string | null; soul_content: string }[]
    >`
      SELECT p.id, p.name, p.description, p.soul_content
        FROM brain.personas p
       WHERE p.account_id = ${accountId}::uuid
         AND p.id = coalesce(
           (SELECT a.persona_id FROM brain.persona_assignments a
             WHERE a.account_id = ${accountId}::uuid AND a.agent_id = ${callerAgentId}),
           (SELECT d.persona_id FROM brain.persona_defaults d WHERE d.account_id = ${accountId}::uuid))`;
    if (row === undefined) return null;
    return { ...row, active: true };
  }
}
