/**
 * Rows no endpoint writes yet (the owner's personas and knowledge documents), put straight into
 * the brain's tables, with ids of the same shape the brain makes.
 */
import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';

const id = (prefix: string) => `${prefix}_${randomBytes(16).toString('base64url')}`;

export async function addPersona(
  db: PrismaClient,
  accountId: string,
  fields: { name: string; agentId?: string | null; description?: string | null; soulContent?: string },
): Promise<string> {
  const row = await db.persona.create({
    data: {
      id: id('per'),
      accountId,
      name: fields.name,
      description: fields.description ?? null,
      soulContent: fields.soulContent ?? `You are ${fields.name}.`,
    },
  });
  // agentId null: the default (replacing any); an agent: that agent's own persona.
  const agentId = fields.agentId ?? null;
  if (agentId === null)
    await db.personaDefault.upsert({
      where: { accountId },
      create: { accountId, personaId: row.id },
      update: { personaId: row.id },
    });
  else await db.personaAssignment.create({ data: { accountId, agentId, personaId: row.id } });
  return row.id;
}

export async function addDocument(
  db: PrismaClient,
  accountId: string,
  fields: { title: string; kind: string; content: string; updatedAt?: Date },
): Promise<string> {
  const row = await db.knowledgeDocument.create({ data: { id: id('doc'), accountId, ...fields } });
  return row.id;
}
