/**
 * brain.context.get: the persona applying to the calling agent, the owner's identity and the
 * newest memory entries, only ever the calling account's.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { BrainContext, MemoryEntry } from '@pag/contracts';
import {
  AppError,
  BrainContext as BrainContextSchema,
  BrainSubjects,
  MEMORY_MAX_BYTES,
} from '@pag/contracts';
import { DEFAULT_PERSONA } from '../src/domain/default-persona.ts';
import { CONTEXT_MEMORY_BYTES, CONTEXT_MEMORY_LIMIT } from '../src/handlers/context-get.ts';
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

/** The brain's reply, checked by its contract, with its memory text read (BrainContext.memoryJson). */
async function context(accountId: string | undefined, agentId?: string) {
  const reply = await t.ask<BrainContext>(BrainSubjects.contextGet, { accountId, agentId });
  expect(BrainContextSchema.parse(reply)).toEqual(reply);
  const { memoryJson, memoryVersion: _, ...parts } = reply;
  // Asked without a version, the memory's text is always sent.
  if (memoryJson === null) throw new Error('a context asked without a version left out the memory');
  return { ...parts, memory: JSON.parse(memoryJson) as MemoryEntry[] };
}

describe('brain.context.get', () => {
  test("a fresh account's context: the default persona, the identity seeded from its account, no memory", async () => {
    const accountId = t.auth.addAccount('fresh.owner@example.com');
    const reply = await context(accountId, 'ag_first');
    expect(reply).toEqual({
      persona: {
        id: expect.stringMatching(/^per_/),
        name: DEFAULT_PERSONA.name,
        description: DEFAULT_PERSONA.description,
        soul_content: DEFAULT_PERSONA.soulContent,
        active: true,
      },
      user: {
        name: 'fresh.owner',
        email: 'fresh.owner@example.com',
        timezone: null,
        locale: null,
        summary: null,
      },
      memory: [],
      memoryCount: 0,
    });
  });

  test("the agent's own persona wins, others get the default, and it is active", async () => {
    const accountId = t.auth.addAccount('personas@example.com');
    const defaultId = await addPersona(t.db, accountId, { name: 'Default', soulContent: 'Be brief.' });
    const ownId = await addPersona(t.db, accountId, {
      name: 'Coder',
      agentId: 'ag_coder',
      soulContent: 'Write code.',
    });
    const own = await context(accountId, 'ag_coder');
    expect(own.persona).toEqual({
      id: ownId,
      name: 'Coder',
      description: null,
      soul_content: 'Write code.',
      active: true,
    });
    expect((await context(accountId, 'ag_other')).persona?.id).toBe(defaultId);
    expect((await context(accountId)).persona?.id).toBe(defaultId);
  });

  test('an account without a default persona gets one on its next read', async () => {
    const accountId = t.auth.addAccount('nodefault@example.com');
    await addPersona(t.db, accountId, { name: 'Only for one', agentId: 'ag_one' });
    expect((await context(accountId, 'ag_two')).persona?.name).toBe(DEFAULT_PERSONA.name);
  });

  test('memory comes newest first, at most CONTEXT_MEMORY_LIMIT entries', async () => {
    const accountId = t.auth.addAccount('memory@example.com');
    const total = CONTEXT_MEMORY_LIMIT + 5;
    // One statement, rows in order: seq follows it, and every row has the same created_at.
    await t.db.memoryEntry.createMany({
      data: Array.from({ length: total }, (_, i) => ({
        id: `mem_test${i}`,
        accountId,
        content: `note ${i}`,
      })),
    });
    const { memory, memoryCount } = await context(accountId);
    expect(memoryCount).toBe(total);
    expect(memory).toHaveLength(CONTEXT_MEMORY_LIMIT);
    expect(memory[0]?.content).toBe(`note ${total - 1}`);
    expect(memory.at(-1)?.content).toBe(`note ${total - CONTEXT_MEMORY_LIMIT}`);
  });

  test('big entries: the newest up to CONTEXT_MEMORY_BYTES of content (UTF-8 bytes), memoryCount exact', async () => {
    const accountId = t.auth.addAccount('big.memory@example.com');
    // 12 entries of 10,000 "ü" each: 20,000 bytes but 10,000 characters, so a budget counted in
    // characters would carry six of them, one in bytes three (60,000 ≤ 65,536 < 80,000).
    const total = 12;
    const entryBytes = Buffer.byteLength('ü'.repeat(10_000));
    await t.db.memoryEntry.createMany({
      data: Array.from({ length: total }, (_, i) => ({
        id: `mem_big${i}`,
        accountId,
        content: `${i}`.padStart(2, '0') + 'ü'.repeat(10_000 - 1),
      })),
    });
    const { memory, memoryCount } = await context(accountId);
    expect(memoryCount).toBe(total);
    const carried = Math.floor(CONTEXT_MEMORY_BYTES / entryBytes);
    expect(carried).toBe(3);
    expect(memory.map((entry) => entry.id)).toEqual(
      Array.from({ length: carried }, (_, i) => `mem_big${total - 1 - i}`),
    );
    const bytes = memory.reduce((sum, entry) => sum + Buffer.byteLength(entry.content), 0);
    expect(bytes).toBeLessThanOrEqual(CONTEXT_MEMORY_BYTES);
    expect(bytes + entryBytes).toBeGreaterThan(CONTEXT_MEMORY_BYTES);
  });

  test('an entry of the largest size fills the budget alone and is still carried, newest first', async () => {
    const accountId = t.auth.addAccount('largest.entry@example.com');
    const older = await t.ask<MemoryEntry>(
      BrainSubjects.memoryCreate,
      { accountId },
      { body: { content: 'a short note, older' } },
    );
    const largest = await t.ask<MemoryEntry>(
      BrainSubjects.memoryCreate,
      { accountId },
      { body: { content: 'x'.repeat(MEMORY_MAX_BYTES) } },
    );
    const { memory, memoryCount } = await context(accountId);
    expect(memoryCount).toBe(2);
    expect(memory).toEqual([largest]);
    expect(older.id).not.toBe(largest.id);
  });

  test('an entry reads back exactly as it was written: id, content, agent and time', async () => {
    const accountId = t.auth.addAccount('exact@example.com');
    const written = [];
    for (const [content, agentId] of [
      ['Zürich, "quoted", a tab\tand\na new line; emoji 🦉 and \\ backslash', 'ag_writer'],
      ['written without an agent', undefined],
    ] as const) {
      written.unshift(
        await t.ask<MemoryEntry>(BrainSubjects.memoryCreate, { accountId, agentId }, { body: { content } }),
      );
    }
    const reply = await context(accountId, 'ag_reader');
    expect(reply.memory).toEqual(written);
    expect(reply.memoryCount).toBe(2);
    expect(written[1]).toMatchObject({ agentId: 'ag_writer' });
    // PostgreSQL wrote the text the gateway passes on: the very bytes JSON.stringify writes.
    const { memoryJson } = await t.ask<BrainContext>(BrainSubjects.contextGet, { accountId });
    expect(memoryJson).toBe(JSON.stringify(written));
  });

  test('an entry written or changed by SQL (pag memory, a migration) shows as it is now in the next context', async () => {
    const accountId = t.auth.addAccount('sql.writer@example.com');
    await t.db.$executeRaw`
      INSERT INTO brain.memory_entries (id, account_id, agent_id, content, created_at)
      VALUES ('mem_bysql', ${accountId}::uuid, NULL, 'first words', '2026-11-24T08:52:59.2Z')`;
    expect((await context(accountId)).memory).toEqual([
      { id: 'mem_bysql', content: 'first words', agentId: null, createdAt: '2026-11-24T08:52:59.200Z' },
    ]);
    await t.db.$executeRaw`
      UPDATE brain.memory_entries SET content = 'changed "words"', agent_id = 'ag_later' WHERE id = 'mem_bysql'`;
    expect((await context(accountId)).memory).toEqual([
      {
        id: 'mem_bysql',
        content: 'changed "words"',
        agentId: 'ag_later',
        createdAt: '2026-11-24T08:52:59.200Z',
      },
    ]);
  });

  test('an unchanged memory is not read again; any change to it is read in the next context', async () => {
    const accountId = t.auth.addAccount('kept.memory@example.com');
    const write = (content: string) =>
      t.ask<MemoryEntry>(BrainSubjects.memoryCreate, { accountId }, { body: { content } });
    const first = await write('kept one');
    expect((await context(accountId)).memory.map((entry) => entry.content)).toEqual(['kept one']);
    // Changed behind the triggers' back (they keep the memory's version): the brain does not read
    // the entries again, so the change does not show. Nothing but such a bypass changes a memory
    // without moving its version.
    await t.db.$transaction([
      t.db.$executeRaw`SET LOCAL session_replication_role = replica`,
      t.db.$executeRaw`UPDATE brain.memory_entries SET content = 'unseen' WHERE id = ${first.id}`,
    ]);
    expect((await context(accountId)).memory.map((entry) => entry.content)).toEqual(['kept one']);
    // Every real change moves it: a write through the brain, an UPDATE, a DELETE by SQL.
    await write('kept two');
    expect((await context(accountId)).memory.map((entry) => entry.content)).toEqual(['kept two', 'unseen']);
    await t.db.$executeRaw`UPDATE brain.memory_entries SET content = 'seen' WHERE id = ${first.id}`;
    expect((await context(accountId)).memory.map((entry) => entry.content)).toEqual(['kept two', 'seen']);
    await t.db.$executeRaw`DELETE FROM brain.memory_entries WHERE id = ${first.id}`;
    const after = await context(accountId);
    expect(after.memory.map((entry) => entry.content)).toEqual(['kept two']);
    expect(after.memoryCount).toBe(1);
  });

  test('a context asked with the version the caller has leaves the unchanged memory out', async () => {
    const accountId = t.auth.addAccount('versioned.memory@example.com');
    const ask = (memoryVersion?: string) =>
      t.ask<BrainContext>(
        BrainSubjects.contextGet,
        { accountId },
        { query: memoryVersion === undefined ? {} : { memoryVersion } },
      );
    await t.ask<MemoryEntry>(BrainSubjects.memoryCreate, { accountId }, { body: { content: 'one' } });
    const first = await ask();
    expect(BrainContextSchema.parse(first)).toEqual(first);
    expect(JSON.parse(String(first.memoryJson))).toHaveLength(1);
    // Still that version: no text; the parts read in the same statement are there as always.
    const same = await ask(first.memoryVersion);
    expect(same).toEqual({ ...first, memoryJson: null });
    // Another version than the memory's (older, or never seen): the text.
    expect((await ask(`${BigInt(first.memoryVersion) + 100n}`)).memoryJson).toBe(first.memoryJson);
    await t.ask<MemoryEntry>(BrainSubjects.memoryCreate, { accountId }, { body: { content: 'two' } });
    const changed = await ask(first.memoryVersion);
    expect(BigInt(changed.memoryVersion)).toBeGreaterThan(BigInt(first.memoryVersion));
    expect(JSON.parse(String(changed.memoryJson)).map((e: MemoryEntry) => e.content)).toEqual(['two', 'one']);
    // A version that is not a count of changes is refused as any malformed request.
    await expect(ask('latest')).rejects.toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
  });

  test("account B never sees account A's persona, identity or memory", async () => {
    const a = t.auth.addAccount('tenant.a@example.com');
    const b = t.auth.addAccount('tenant.b@example.com');
    await addPersona(t.db, a, { name: 'A default' });
    await addPersona(t.db, a, { name: 'A agent', agentId: 'ag_shared_name' });
    await t.ask(BrainSubjects.memoryCreate, { accountId: a }, { body: { content: 'A secret' } });
    await context(a);
    const seenByB = await context(b, 'ag_shared_name');
    expect(seenByB).toEqual({
      persona: expect.objectContaining({ name: DEFAULT_PERSONA.name }),
      user: { name: 'tenant.b', email: 'tenant.b@example.com', timezone: null, locale: null, summary: null },
      memory: [],
      memoryCount: 0,
    });
  });

  test('a message without the account header is refused, never answered for someone', async () => {
    const error = await context(undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('AUTHENTICATION_REQUIRED');
    expect((error as AppError).message).toContain('pag-account-id');
    await expect(context('not-a-uuid')).rejects.toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
  });

  test('a payload that is not a DispatchRequest is a 400 naming the field', async () => {
    const accountId = randomUUID();
    const error = await t.bus
      .request(
        BrainSubjects.contextGet,
        { params: 'x', query: {}, body: null },
        {
          timeoutMs: 5_000,
          headers: { 'pag-account-id': accountId, 'pag-scopes': 'full' },
        },
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect((error as AppError).message).toContain('params');
  });

  test('an agent header that is not an agent id is a 400 naming the header', async () => {
    const accountId = t.auth.addAccount('badagent@example.com');
    await expect(context(accountId, 'ag bad/id')).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('pag-agent-id'),
    });
  });
});
