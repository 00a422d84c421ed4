/**
 * brain.context.get keeps each (account, agent)'s parts (persona, identity, memory count and
 * version) in memory (store/context-parts-cache.ts, docs/adr/0071) and is never older than a change
 * committed before it was asked, whoever wrote it and on whichever replica it is answered: no
 * waiting for the announcement. A change made with the triggers off is announced to nobody, so
 * it staying unseen shows the parts came from memory.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { BrainContext, MemoryEntry } from '@pag/contracts';
import { BrainSubjects } from '@pag/contracts';
import { eventually } from '@pag/kit/testing';
import type { RunningBrain } from '../src/service.ts';
import { addPersona } from './support/seed.ts';
import type { TestBrain } from './support/start-test-brain.ts';
import { startTestBrain } from './support/start-test-brain.ts';

let t: TestBrain;
let replica: RunningBrain;
beforeAll(async () => {
  t = await startTestBrain();
  replica = await t.startReplica();
}, 60_000);
afterAll(async () => {
  await replica?.close();
  await t?.close();
});

/** The parts as the gateway sees them (any replica answers), with the memory's contents. */
async function context(accountId: string, agentId?: string) {
  const reply = await t.ask<BrainContext>(BrainSubjects.contextGet, {
    accountId,
    ...(agentId ? { agentId } : {}),
  });
  const memory = JSON.parse(reply.memoryJson ?? 'null') as MemoryEntry[];
  return {
    soul: reply.persona?.soul_content,
    timezone: reply.user.timezone,
    count: reply.memoryCount,
    memory: memory.map((entry) => entry.content),
  };
}

/** Runs the statement with every trigger off: nobody is told (and memory_counts does not move). */
async function unannounced(statement: ReturnType<TestBrain['db']['$executeRaw']>): Promise<void> {
  await t.db.$transaction([t.db.$executeRaw`SET LOCAL session_replication_role = replica`, statement]);
}

/**
 * Contexts asked so that every replica has answered (and kept) one: the in-memory broker's queue
 * group takes turns, a nats-server's picks at random (a replica left out: 2 × 2^-20).
 */
const WARM = 20;
async function warmed(accountId: string, soul: string): Promise<void> {
  for (let i = 0; i < WARM; i += 1) expect((await context(accountId, 'ag_one')).soul).toBe(soul);
}

async function account(name: string): Promise<{ accountId: string; personaId: string }> {
  const accountId = t.auth.addAccount(`${name}@example.com`);
  const personaId = await addPersona(t.db, accountId, { name: 'Default', soulContent: 'v0' });
  await context(accountId, 'ag_one');
  return { accountId, personaId };
}

test('unchanged parts are answered from memory on every replica; an announced change reads them again', async () => {
  const { accountId, personaId } = await account('parts.kept');
  await warmed(accountId, 'v0');
  await unannounced(
    t.db.$executeRaw`UPDATE brain.personas SET soul_content = 'hidden' WHERE id = ${personaId}`,
  );
  await unannounced(
    t.db
      .$executeRaw`UPDATE brain.identity_profiles SET timezone = 'Europe/Paris' WHERE account_id = ${accountId}::uuid`,
  );
  // Read again per request (main before ADR 0071), the context would show 'hidden' and Paris.
  for (let i = 0; i < 4; i += 1) {
    expect(await context(accountId, 'ag_one')).toEqual({ soul: 'v0', timezone: null, count: 0, memory: [] });
  }
  // Any announced change of the account reads every part again (the hidden ones show too).
  await t.db
    .$executeRaw`UPDATE brain.identity_profiles SET locale = 'fr-FR' WHERE account_id = ${accountId}::uuid`;
  for (let i = 0; i < 4; i += 1) {
    expect(await context(accountId, 'ag_one')).toEqual({
      soul: 'hidden',
      timezone: 'Europe/Paris',
      count: 0,
      memory: [],
    });
  }
});

test('a committed change of each part is in the very next context, on either replica, 25 rounds', async () => {
  const { accountId, personaId } = await account('parts.changed');
  const write = (content: string) =>
    t.ask<MemoryEntry>(BrainSubjects.memoryCreate, { accountId, agentId: 'ag_one' }, { body: { content } });
  const warm = async () => {
    await context(accountId, 'ag_one');
    await context(accountId, 'ag_one');
  };
  for (let round = 0; round < 25; round += 1) {
    // A persona edit.
    await warm();
    await t.db
      .$executeRaw`UPDATE brain.personas SET soul_content = ${`edit ${round}`} WHERE id = ${personaId}`;
    expect((await context(accountId, 'ag_one')).soul).toBe(`edit ${round}`);
    // An assignment of the agent's own persona, and its removal.
    await warm();
    const own = await addPersona(t.db, accountId, {
      name: `Own ${round}`,
      agentId: 'ag_one',
      soulContent: `own ${round}`,
    });
    expect((await context(accountId, 'ag_one')).soul).toBe(`own ${round}`);
    await warm();
    await t.db.$executeRaw`DELETE FROM brain.persona_assignments WHERE persona_id = ${own}`;
    expect((await context(accountId, 'ag_one')).soul).toBe(`edit ${round}`);
    // Another default.
    await warm();
    const other = await addPersona(t.db, accountId, {
      name: `Default ${round}`,
      soulContent: `default ${round}`,
    });
    expect((await context(accountId, 'ag_one')).soul).toBe(`default ${round}`);
    await t.db
      .$executeRaw`UPDATE brain.persona_defaults SET persona_id = ${personaId} WHERE account_id = ${accountId}::uuid`;
    expect((await context(accountId, 'ag_one')).soul).toBe(`edit ${round}`);
    await t.db.$executeRaw`DELETE FROM brain.personas WHERE id = ${other} OR id = ${own}`;
    // The identity.
    await warm();
    const zone = round % 2 === 0 ? 'Asia/Tokyo' : 'America/Lima';
    await t.db
      .$executeRaw`UPDATE brain.identity_profiles SET timezone = ${zone} WHERE account_id = ${accountId}::uuid`;
    expect((await context(accountId, 'ag_one')).timezone).toBe(zone);
    // A memory note written through the bus (either replica), then one by SQL, then a delete by SQL.
    await warm();
    const note = await write(`note ${round}`);
    expect(await context(accountId, 'ag_one')).toMatchObject({ count: 1, memory: [`note ${round}`] });
    await warm();
    await t.db.$executeRaw`INSERT INTO brain.memory_entries (id, account_id, agent_id, content)
      VALUES (${`mem_sql${round}`}, ${accountId}::uuid, 'ag_sql', ${`sql ${round}`})`;
    expect(await context(accountId, 'ag_one')).toMatchObject({
      count: 2,
      memory: [`sql ${round}`, `note ${round}`],
    });
    await warm();
    await t.db.$executeRaw`DELETE FROM brain.memory_entries WHERE account_id = ${accountId}::uuid`;
    expect(await context(accountId, 'ag_one')).toMatchObject({ count: 0, memory: [] });
    expect(note.content).toBe(`note ${round}`);
  }
});

test("one owner's change never drops or shows in another's parts; the same agent id is two agents", async () => {
  const a = await account('tenant.a');
  const b = await account('tenant.b');
  await warmed(a.accountId, 'v0');
  await warmed(b.accountId, 'v0');
  await unannounced(
    t.db.$executeRaw`UPDATE brain.personas SET soul_content = 'a hidden' WHERE id = ${a.personaId}`,
  );
  await t.db.$executeRaw`UPDATE brain.personas SET soul_content = 'b new' WHERE id = ${b.personaId}`;
  for (let i = 0; i < 4; i += 1) {
    // B's announcement did not drop A's kept parts (A's hidden change stays unseen), nor show in them.
    expect((await context(a.accountId, 'ag_one')).soul).toBe('v0');
    expect((await context(b.accountId, 'ag_one')).soul).toBe('b new');
  }
});

test('while a brain cannot hear changes it reads every context from the database, and listens again', async () => {
  const { accountId, personaId } = await account('parts.listener');
  const hide = (soul: string) =>
    unannounced(t.db.$executeRaw`UPDATE brain.personas SET soul_content = ${soul} WHERE id = ${personaId}`);
  await warmed(accountId, 'v0');
  // The listening connections are cut (as a failover or a restart of PostgreSQL would).
  await t.db
    .$queryRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pag-listen-brain_context'`;
  await hide('while deaf');
  await eventually(
    async () => {
      for (let i = 0; i < 4; i += 1) expect((await context(accountId, 'ag_one')).soul).toBe('while deaf');
    },
    { what: 'the contexts are read from the database', timeoutMs: 4_000 },
  );
  // Reconnected (kit's listener retries after 1 s), the memory serves again.
  await eventually(
    async () => {
      const soul = randomUUID();
      await t.db.$executeRaw`UPDATE brain.personas SET soul_content = ${soul} WHERE id = ${personaId}`;
      await warmed(accountId, soul);
      await hide('hidden again');
      for (let i = 0; i < 4; i += 1) expect((await context(accountId, 'ag_one')).soul).toBe(soul);
    },
    { what: 'the brains listen again', timeoutMs: 15_000, intervalMs: 200 },
  );
});
