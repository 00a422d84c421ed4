/**
 * brain.personas.list: every persona of the calling account, the one applying to the calling
 * agent marked active; never another account's.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { PersonaList } from '@pag/contracts';
import { BrainSubjects, PersonaList as PersonaListSchema } from '@pag/contracts';
import { DEFAULT_PERSONA } from '../src/domain/default-persona.ts';
import { addPersona } from './support/seed.ts';
import type { TestBrain } from './support/start-test-brain.ts';
import { startTestBrain } from './support/start-test-brain.ts';

let t: TestBrain;
beforeAll(async () => {
  t = await startTestBrain();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const list = (accountId: string | undefined, agentId?: string) =>
  t.ask<PersonaList>(BrainSubjects.personasList, { accountId, agentId });
const active = (reply: PersonaList) => reply.personas.filter((p) => p.active).map((p) => p.name);

describe('brain.personas.list', () => {
  test('lists every persona oldest first, with the calling agent’s own one active', async () => {
    const accountId = t.auth.addAccount('list@example.com');
    await addPersona(t.db, accountId, {
      name: 'Default',
      description: 'For everyone',
      soulContent: 'Be kind.',
    });
    await addPersona(t.db, accountId, { name: 'Coder', agentId: 'ag_coder' });
    await addPersona(t.db, accountId, { name: 'Writer', agentId: 'ag_writer' });
    const reply = await list(accountId, 'ag_coder');
    expect(PersonaListSchema.parse(reply)).toEqual(reply);
    expect(reply.personas.map((p) => p.name)).toEqual(['Default', 'Coder', 'Writer']);
    expect(reply.personas[0]).toMatchObject({ description: 'For everyone', soul_content: 'Be kind.' });
    expect(active(reply)).toEqual(['Coder']);
    expect(active(await list(accountId, 'ag_unknown'))).toEqual(['Default']);
    expect(active(await list(accountId))).toEqual(['Default']);
  });

  test('an account without a default gets one first, and an agent without its own sees it active', async () => {
    const accountId = t.auth.addAccount('nodefault.list@example.com');
    await addPersona(t.db, accountId, { name: 'Coder', agentId: 'ag_coder' });
    expect(active(await list(accountId, 'ag_other'))).toEqual([DEFAULT_PERSONA.name]);
  });

  test("a name is taken once per account; an agent's persona is one of its own account's", async () => {
    const accountId = t.auth.addAccount('unique@example.com');
    const other = t.auth.addAccount('unique.other@example.com');
    await addPersona(t.db, accountId, { name: 'Same' });
    await expect(addPersona(t.db, accountId, { name: 'Same' })).rejects.toThrow();
    const foreign = await addPersona(t.db, other, { name: 'Foreign' });
    await expect(
      t.db.personaAssignment.create({ data: { accountId, agentId: 'ag_x', personaId: foreign } }),
    ).rejects.toThrow();
    await expect(t.db.personaDefault.create({ data: { accountId, personaId: foreign } })).rejects.toThrow();
  });

  test("account B never lists account A's personas, even with the same agent id", async () => {
    const a = t.auth.addAccount('per.a@example.com');
    const b = t.auth.addAccount('per.b@example.com');
    await addPersona(t.db, a, { name: 'A default' });
    await addPersona(t.db, a, { name: 'A agent', agentId: 'ag_same' });
    const seenByB = await list(b, 'ag_same');
    expect(seenByB.personas.map((p) => [p.name, p.active])).toEqual([[DEFAULT_PERSONA.name, true]]);
  });

  test('a missing account header or a malformed agent header is refused', async () => {
    await expect(list(undefined)).rejects.toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
    const accountId = t.auth.addAccount('hdr@example.com');
    await expect(list(accountId, 'ag_ü')).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('pag-agent-id'),
    });
  });
});
