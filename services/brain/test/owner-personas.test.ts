/**
 * The owner's personas (BrainOwnerEndpoints.persona*): create, edit, make default, delete and
 * assign, as the dashboard and `pag persona` do; the default persona every account gets; and
 * tenancy: another account's persona is 404 and never listed.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { BrainContext, PersonaList } from '@pag/contracts';
import { BrainOwnerEndpoints, BrainSubjects } from '@pag/contracts';
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

const E = BrainOwnerEndpoints;
const list = (accountId: string) => t.askOwner(E.personasList, { accountId });
const save = (
  accountId: string,
  fields: Omit<Parameters<typeof t.askOwner<typeof E.personaSave>>[1], 'accountId'>,
) => t.askOwner(E.personaSave, { accountId, ...fields });
const context = (accountId: string, agentId?: string) =>
  t.ask<BrainContext>(BrainSubjects.contextGet, { accountId, agentId });

describe('the default persona', () => {
  test("a fresh account's first context carries the default persona, made once", async () => {
    const accountId = t.auth.addAccount('fresh.persona@example.com');
    const first = await context(accountId, 'ag_one');
    expect(first.persona).toMatchObject({
      name: DEFAULT_PERSONA.name,
      soul_content: DEFAULT_PERSONA.soulContent,
      active: true,
    });
    expect((await context(accountId, 'ag_two')).persona?.id).toBe(first.persona?.id);
    const { personas } = await list(accountId);
    expect(personas).toEqual([
      expect.objectContaining({ id: first.persona?.id, isDefault: true, agents: [] }),
    ]);
  });

  test('the soul_content points at the identity, time zone, locale and memory, and asks before acting', () => {
    const soul = DEFAULT_PERSONA.soulContent;
    for (const word of ['identity', 'time zone', 'locale', 'memory', 'Never invent', 'Ask before acting']) {
      expect(soul).toContain(word);
    }
  });

  test('replicas meeting a fresh account at once leave one default persona', async () => {
    const replica = await t.startReplica();
    const accountId = t.auth.addAccount('race.persona@example.com');
    const replies = await Promise.all(Array.from({ length: 20 }, () => context(accountId)));
    expect(new Set(replies.map((r) => r.persona?.id)).size).toBe(1);
    expect(await t.db.persona.count({ where: { accountId } })).toBe(1);
    await replica.close();
  });

  test('an existing account without a default gets one on its next read', async () => {
    const accountId = t.auth.addAccount('existing.persona@example.com');
    await addPersona(t.db, accountId, { name: 'Only for one', agentId: 'ag_one' });
    expect((await context(accountId, 'ag_two')).persona?.name).toBe(DEFAULT_PERSONA.name);
    expect((await context(accountId, 'ag_one')).persona?.name).toBe('Only for one');
  });

  test('a persona already named like the default becomes the default as it is', async () => {
    const accountId = t.auth.addAccount('named.default@example.com');
    const id = await addPersona(t.db, accountId, { name: DEFAULT_PERSONA.name, agentId: 'ag_x' });
    expect((await context(accountId, 'ag_y')).persona).toMatchObject({
      id,
      soul_content: 'You are Default.',
    });
  });

  test("the agent's persona list of a fresh account shows the default, active", async () => {
    const accountId = t.auth.addAccount('fresh.list@example.com');
    const reply = await t.ask<PersonaList>(BrainSubjects.personasList, { accountId, agentId: 'ag_a' });
    expect(reply.personas).toEqual([expect.objectContaining({ name: DEFAULT_PERSONA.name, active: true })]);
  });
});

describe('brain.owner-personas.save', () => {
  test('creates, edits and makes a persona the default; the context follows', async () => {
    const accountId = t.auth.addAccount('save.persona@example.com');
    const created = await save(accountId, { name: 'Coder', soul_content: 'Write code.' });
    expect(created).toMatchObject({
      name: 'Coder',
      description: null,
      soul_content: 'Write code.',
      isDefault: false,
      agents: [],
    });
    const edited = await save(accountId, {
      id: created.id,
      name: 'Careful coder',
      description: 'Tests first',
      soul_content: 'Write tests first.',
      makeDefault: true,
    });
    expect(edited).toMatchObject({ id: created.id, name: 'Careful coder', isDefault: true });
    expect(Date.parse(edited.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect((await context(accountId, 'ag_any')).persona).toMatchObject({
      id: created.id,
      soul_content: 'Write tests first.',
    });
    const personas = (await list(accountId)).personas;
    expect(personas.map((p) => [p.name, p.isDefault])).toEqual([
      [DEFAULT_PERSONA.name, false],
      ['Careful coder', true],
    ]);
    // An edit without a description keeps it.
    const kept = await save(accountId, { id: created.id, name: 'Careful coder', soul_content: 'Same.' });
    expect(kept.description).toBe('Tests first');
  });

  test('a name taken in the account is 409 CONFLICT with a hint; another account may use it', async () => {
    const accountId = t.auth.addAccount('taken.persona@example.com');
    await save(accountId, { name: 'Writer', soul_content: 'Write.' });
    const other = await save(accountId, { name: 'Other', soul_content: 'x' });
    for (const attempt of [
      save(accountId, { name: 'Writer', soul_content: 'Again.' }),
      save(accountId, { id: other.id, name: 'Writer', soul_content: 'Rename.' }),
    ]) {
      await expect(attempt).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringContaining('"Writer"'),
        hint: expect.stringContaining('another name'),
      });
    }
    const elsewhere = t.auth.addAccount('taken.elsewhere@example.com');
    await expect(save(elsewhere, { name: 'Writer', soul_content: 'Mine.' })).resolves.toMatchObject({
      name: 'Writer',
    });
  });

  test('an invalid message is refused naming the field', async () => {
    const accountId = t.auth.addAccount('invalid.persona@example.com');
    await expect(
      t.authBus.request(
        E.personaSave.subject,
        { accountId, name: '', soul_content: 'x' },
        { timeoutMs: 5_000 },
      ),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('name') });
  });
});

describe('brain.owner-personas.delete', () => {
  test('the default cannot be deleted; another can, and its agents follow the default again', async () => {
    const accountId = t.auth.addAccount('delete.persona@example.com');
    const coder = await save(accountId, { name: 'Coder', soul_content: 'Code.' });
    await t.askOwner(E.personaAssign, { accountId, agentId: 'ag_c', personaId: coder.id });
    expect((await context(accountId, 'ag_c')).persona?.id).toBe(coder.id);
    const defaultId = (await list(accountId)).personas.find((p) => p.isDefault)?.id ?? '';
    await expect(t.askOwner(E.personaDelete, { accountId, id: defaultId })).rejects.toMatchObject({
      code: 'CONFLICT',
      hint: expect.stringContaining('Make another persona the default first'),
    });
    expect(await t.askOwner(E.personaDelete, { accountId, id: coder.id })).toEqual({
      id: coder.id,
      deleted: true,
    });
    expect((await context(accountId, 'ag_c')).persona?.id).toBe(defaultId);
    expect(await t.db.personaAssignment.count({ where: { accountId } })).toBe(0);
    await expect(t.askOwner(E.personaDelete, { accountId, id: coder.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  test('once another is the default, the old default can be deleted', async () => {
    const accountId = t.auth.addAccount('redefault.persona@example.com');
    const [old] = (await list(accountId)).personas;
    const next = await save(accountId, { name: 'Next', soul_content: 'Next.', makeDefault: true });
    await t.askOwner(E.personaDelete, { accountId, id: old?.id ?? '' });
    expect((await list(accountId)).personas.map((p) => p.id)).toEqual([next.id]);
  });
});

describe('brain.owner-personas.assign', () => {
  test('assigns, reassigns and unassigns an agent; the list names its agents', async () => {
    const accountId = t.auth.addAccount('assign.persona@example.com');
    const a = await save(accountId, { name: 'A', soul_content: 'A.' });
    const b = await save(accountId, { name: 'B', soul_content: 'B.' });
    expect(await t.askOwner(E.personaAssign, { accountId, agentId: 'ag_1', personaId: a.id })).toEqual({
      agentId: 'ag_1',
      personaId: a.id,
    });
    await t.askOwner(E.personaAssign, { accountId, agentId: 'ag_2', personaId: a.id });
    await t.askOwner(E.personaAssign, { accountId, agentId: 'ag_2', personaId: b.id });
    const byName = Object.fromEntries((await list(accountId)).personas.map((p) => [p.name, p.agents]));
    expect(byName).toEqual({ [DEFAULT_PERSONA.name]: [], A: ['ag_1'], B: ['ag_2'] });
    expect((await context(accountId, 'ag_2')).persona?.id).toBe(b.id);
    await t.askOwner(E.personaAssign, { accountId, agentId: 'ag_2', personaId: null });
    expect((await context(accountId, 'ag_2')).persona?.name).toBe(DEFAULT_PERSONA.name);
  });
});

describe('tenancy', () => {
  test("account B can neither list, edit, delete, assign nor make default account A's personas", async () => {
    const a = t.auth.addAccount('tenant.a.persona@example.com');
    const b = t.auth.addAccount('tenant.b.persona@example.com');
    const mine = await save(a, { name: 'Secret', soul_content: 'A only.' });
    expect((await list(b)).personas.map((p) => p.name)).toEqual([DEFAULT_PERSONA.name]);
    await expect(
      save(b, { id: mine.id, name: 'Stolen', soul_content: 'B.', makeDefault: true }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(t.askOwner(E.personaDelete, { accountId: b, id: mine.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      t.askOwner(E.personaAssign, { accountId: b, agentId: 'ag_b', personaId: mine.id }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await t.db.persona.findUnique({ where: { id: mine.id } })).toMatchObject({
      name: 'Secret',
      soulContent: 'A only.',
    });
    expect((await context(b, 'ag_b')).persona?.name).toBe(DEFAULT_PERSONA.name);
  });
});
