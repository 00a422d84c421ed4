/**
 * An owner's personas, listed oldest first (the list keeps its order as personas are added).
 * For agents each is marked `active` when it applies to the calling agent
 * (domain/persona-choice.ts); for the owner each carries whether it is the default and the agents
 * it is assigned to. The composite foreign keys (account_id, persona_id) keep a default or an
 * assignment inside its own account, refuse deleting the default (RESTRICT) and drop a deleted
 * persona's assignments (CASCADE): the database decides, so concurrent edits cannot get around it.
 */
import type { OwnerPersona, Persona } from '@pag/contracts';
import type { DEFAULT_PERSONA } from '../domain/default-persona.ts';
import { applyingPersonaId } from '../domain/persona-choice.ts';
import { newId } from '../domain/resource-id.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isForeignKeyViolation, isUniqueViolation } from './prisma-errors.ts';

/** A persona's fields as the owner gives them; description undefined keeps the stored one. */
export interface PersonaFields {
  name: string;
  description?: string | null;
  soulContent: string;
  makeDefault: boolean;
}

export type SaveResult = OwnerPersona | 'not-found' | 'name-taken';
export type DeleteResult = 'deleted' | 'not-found' | 'is-default';
export type AssignResult = 'assigned' | 'persona-not-found';

const OWNER_SELECT = {
  id: true,
  name: true,
  description: true,
  soulContent: true,
  createdAt: true,
  updatedAt: true,
  defaultFor: { select: { accountId: true } },
  assignments: { select: { agentId: true }, orderBy: { agentId: 'asc' } },
} as const;

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

  /** Every persona of the account as the owner sees it, oldest first. */
  async ownerList(accountId: string): Promise<OwnerPersona[]> {
    const rows = await this.#prisma.persona.findMany({
      where: { accountId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: OWNER_SELECT,
    });
    return rows.map(toOwnerPersona);
  }

  /**
   * Creates a persona (id undefined) or changes the account's persona `id`, and makes it the
   * default when asked, in one transaction. 'not-found': no such persona in this account;
   * 'name-taken': another persona of the account has the name.
   */
  async save(accountId: string, id: string | undefined, fields: PersonaFields): Promise<SaveResult> {
    try {
      return await this.#prisma.$transaction(async (tx) => {
        const data = { name: fields.name, soulContent: fields.soulContent };
        let personaId: string;
        if (id === undefined) {
          personaId = newId('persona');
          await tx.persona.create({
            data: { id: personaId, accountId, ...data, description: fields.description ?? null },
          });
        } else {
          const changed = await tx.persona.updateMany({
            where: { accountId, id },
            data: fields.description === undefined ? data : { ...data, description: fields.description },
          });
          if (changed.count === 0) return 'not-found';
          personaId = id;
        }
        if (fields.makeDefault) {
          await tx.personaDefault.upsert({
            where: { accountId },
            create: { accountId, personaId },
            update: { personaId },
          });
        }
        const row = await tx.persona.findUniqueOrThrow({ where: { id: personaId }, select: OWNER_SELECT });
        return toOwnerPersona(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) return 'name-taken';
      throw error;
    }
  }

  /**
   * Deletes the account's persona `id`; the agents it was assigned to follow the default again
   * (CASCADE). The default itself is refused ('is-default', the RESTRICT foreign key).
   */
  async delete(accountId: string, id: string): Promise<DeleteResult> {
    try {
      const gone = await this.#prisma.persona.deleteMany({ where: { accountId, id } });
      return gone.count === 0 ? 'not-found' : 'deleted';
    } catch (error) {
      if (isForeignKeyViolation(error)) return 'is-default';
      throw error;
    }
  }

  /** Gives `agentId` the account's persona `personaId` of its own; null: it follows the default. */
  async assign(accountId: string, agentId: string, personaId: string | null): Promise<AssignResult> {
    if (personaId === null) {
      await this.#prisma.personaAssignment.deleteMany({ where: { accountId, agentId } });
      return 'assigned';
    }
    try {
      await this.#prisma.personaAssignment.upsert({
        where: { accountId_agentId: { accountId, agentId } },
        create: { accountId, agentId, personaId },
        update: { personaId, assignedAt: new Date() },
      });
      return 'assigned';
    } catch (error) {
      // The composite key (account_id, persona_id): no such persona in this account.
      if (isForeignKeyViolation(error)) return 'persona-not-found';
      throw error;
    }
  }

  /** Whether the account has a default persona. */
  async hasDefault(accountId: string): Promise<boolean> {
    return (await this.#prisma.personaDefault.count({ where: { accountId } })) > 0;
  }

  /**
   * Gives an account without a default persona `persona` as its default, in one transaction of two
   * INSERT … ON CONFLICT DO NOTHING: replicas doing it at once leave one persona and one default,
   * and an account that has a default (or gets one meanwhile) keeps it. A persona of the account
   * that already has the name becomes the default as it is.
   */
  async insertDefaultIfAbsent(accountId: string, persona: typeof DEFAULT_PERSONA): Promise<void> {
    await this.#prisma.$transaction([
      this.#prisma.$executeRaw`
        INSERT INTO brain.personas (id, account_id, name, description, soul_content)
        SELECT ${newId('persona')}, ${accountId}::uuid, ${persona.name}, ${persona.description}, ${persona.soulContent}
         WHERE NOT EXISTS (SELECT 1 FROM brain.persona_defaults WHERE account_id = ${accountId}::uuid)
        ON CONFLICT DO NOTHING`,
      this.#prisma.$executeRaw`
        INSERT INTO brain.persona_defaults (account_id, persona_id)
        SELECT account_id, id FROM brain.personas
         WHERE account_id = ${accountId}::uuid AND name = ${persona.name}
        ON CONFLICT DO NOTHING`,
    ]);
  }
}

interface OwnerRow {
  id: string;
  name: string;
  description: string | null;
  soulContent: string;
  createdAt: Date;
  updatedAt: Date;
  defaultFor: { accountId: string } | null;
  assignments: { agentId: string }[];
}

function toOwnerPersona(row: OwnerRow): OwnerPersona {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    soul_content: row.soulContent,
    isDefault: row.defaultFor !== null,
    agents: row.assignments.map((a) => a.agentId),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
