/**
 * brain.memory.create: the note is stored for the calling account with the agent that wrote it,
 * answered as a MemoryEntry, and shows up in that account's context only. The body is checked
 * again, MEMORY_MAX_BYTES included.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { BrainContext, MemoryEntry } from '@pag/contracts';
import { BrainSubjects, MEMORY_MAX_BYTES, MemoryEntry as MemoryEntrySchema } from '@pag/contracts';
import type { TestBrain } from './support/start-test-brain.ts';
import { startTestBrain } from './support/start-test-brain.ts';

let t: TestBrain;
beforeAll(async () => {
  t = await startTestBrain();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const write = (accountId: string, body: unknown, agentId?: string) =>
  t.ask<MemoryEntry>(BrainSubjects.memoryCreate, { accountId, agentId }, { body });

describe('brain.memory.create', () => {
  test('stores the note with its writer and answers the entry', async () => {
    const accountId = t.auth.addAccount('writer@example.com');
    const entry = await write(accountId, { content: 'Alice prefers **mornings**.' }, 'ag_writer');
    expect(MemoryEntrySchema.parse(entry)).toEqual(entry);
    expect(entry.id).toMatch(/^mem_[A-Za-z0-9_-]{22}$/);
    expect(entry.content).toBe('Alice prefers **mornings**.');
    const row = await t.db.memoryEntry.findUniqueOrThrow({ where: { id: entry.id } });
    expect(row).toMatchObject({ accountId, agentId: 'ag_writer' });
    expect(row.createdAt.toISOString()).toBe(entry.createdAt);
  });

  test('notes written one after the other come back newest first in the context', async () => {
    const accountId = t.auth.addAccount('order@example.com');
    const written: string[] = [];
    for (let i = 0; i < 5; i += 1) written.push((await write(accountId, { content: `n${i}` })).id);
    const { memoryJson } = await t.ask<BrainContext>(BrainSubjects.contextGet, { accountId });
    const memory = JSON.parse(String(memoryJson)) as MemoryEntry[];
    expect(memory.map((entry) => entry.id)).toEqual(written.reverse());
  });

  test('notes written at the same time share a commit, and each caller gets its own entry', async () => {
    const accountId = t.auth.addAccount('together@example.com');
    const contents = Array.from({ length: 40 }, (_, i) => `together ${i}`);
    const entries = await Promise.all(contents.map((content) => write(accountId, { content }, 'ag_many')));
    expect(entries.map((entry) => entry.content)).toEqual(contents);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(contents.length);
    // xmin: the transaction that stored the row. One commit per note gave 40.
    const rows = await t.db.$queryRaw<{ id: string; content: string; tx: string; created_at: Date }[]>`
      SELECT id, content, xmin::text AS tx, created_at FROM brain.memory_entries WHERE account_id = ${accountId}::uuid`;
    expect(rows).toHaveLength(contents.length);
    expect(new Set(rows.map((row) => row.tx)).size).toBeLessThan(contents.length / 2);
    const stored = new Map(rows.map((row) => [row.id, row]));
    for (const entry of entries) {
      expect(stored.get(entry.id)?.content).toBe(entry.content);
      expect(stored.get(entry.id)?.created_at.toISOString()).toBe(entry.createdAt);
    }
    const { memoryCount } = await t.ask<BrainContext>(BrainSubjects.contextGet, { accountId });
    expect(memoryCount).toBe(contents.length);
  });

  test('a note the database refuses fails alone; the notes committed beside it are stored', async () => {
    const accountId = t.auth.addAccount('refused@example.com');
    // A rule only this test has, so that one note of a shared commit fails on its own.
    await t.db.$executeRawUnsafe(
      `ALTER TABLE brain.memory_entries ADD CONSTRAINT test_refused CHECK (content <> 'refused by the database')`,
    );
    try {
      const contents = ['before', 'refused by the database', 'after', 'last'];
      const outcomes = await Promise.allSettled(contents.map((content) => write(accountId, { content })));
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      expect(outcomes[1]).toMatchObject({ reason: { status: 500 } });
      const stored = await t.db.memoryEntry.findMany({ where: { accountId }, select: { content: true } });
      expect(stored.map((row) => row.content).sort()).toEqual(['after', 'before', 'last']);
    } finally {
      await t.db.$executeRawUnsafe('ALTER TABLE brain.memory_entries DROP CONSTRAINT test_refused');
    }
  });

  test('notes of one commit are stored as sent: quotes, backslashes, unicode, line breaks; NUL refused', async () => {
    const accountId = t.auth.addAccount('escaping@example.com');
    const contents = [
      'say "hi" \\ and \\\\ twice',
      '{"looks":["like",json]}, \'single\', `back`',
      'caf\u00e9 \u4e2d\u6587 \u{1f600} \u2028 end',
      'tab\tline\nnext line',
      '\\u0000 (escaped, not a NUL) and a trailing backslash \\',
    ];
    const outcomes = await Promise.allSettled([
      ...contents.map((content) => write(accountId, { content }, 'ag_escaping')),
      write(accountId, { content: 'a\u0000b' }, 'ag_escaping'),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      ...contents.map(() => 'fulfilled'),
      'rejected',
    ]);
    expect(outcomes.at(-1)).toMatchObject({ reason: { status: 400 } });
    const rows = await t.db.$queryRaw<{ content: string; agent_id: string; tx: string }[]>`
      SELECT content, agent_id, xmin::text AS tx FROM brain.memory_entries
       WHERE account_id = ${accountId}::uuid ORDER BY seq`;
    expect(rows.map((row) => row.content)).toEqual(contents);
    expect(rows.every((row) => row.agent_id === 'ag_escaping')).toBe(true);
    // Written together: the notes after the first shared a commit (GroupCommit's batch).
    expect(new Set(rows.map((row) => row.tx)).size).toBeLessThan(contents.length);
    const { memoryJson } = await t.ask<BrainContext>(BrainSubjects.contextGet, { accountId });
    const memory = JSON.parse(String(memoryJson)) as MemoryEntry[];
    expect(memory.map((entry) => entry.content).reverse()).toEqual(contents);
  });

  test('a token without an agent writes a note without a writer', async () => {
    const accountId = t.auth.addAccount('noagent@example.com');
    const entry = await write(accountId, { content: 'x' });
    expect((await t.db.memoryEntry.findUniqueOrThrow({ where: { id: entry.id } })).agentId).toBeNull();
  });

  test("one account's note never appears in another's context", async () => {
    const a = t.auth.addAccount('mem.a@example.com');
    const b = t.auth.addAccount('mem.b@example.com');
    await write(a, { content: 'only for A' });
    const seenByB = await t.ask<BrainContext>(BrainSubjects.contextGet, { accountId: b });
    expect(seenByB.memoryJson).toBe('[]');
  });

  test('exactly MEMORY_MAX_BYTES of UTF-8 is accepted; one byte more is a 400 naming body.content', async () => {
    const accountId = t.auth.addAccount('limits@example.com');
    // "é" is two bytes: half the limit in characters is the limit in bytes.
    const atLimit = 'é'.repeat(MEMORY_MAX_BYTES / 2);
    expect((await write(accountId, { content: atLimit })).content).toBe(atLimit);
    await expect(write(accountId, { content: `${atLimit}a` })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      status: 400,
      message: expect.stringMatching(/body\.content: .*65536 bytes/),
    });
  });

  test('bad bodies are 400s naming the field, and nothing is stored', async () => {
    const accountId = t.auth.addAccount('bad@example.com');
    const cases: [unknown, string][] = [
      [null, 'body: '],
      [{}, 'body.content'],
      [{ content: '' }, 'body.content'],
      [{ content: 42 }, 'body.content'],
      [{ content: 'ok', extra: true }, 'extra'],
      [{ content: 'bell \u0007' }, 'body.content'],
    ];
    for (const [body, field] of cases) {
      await expect(write(accountId, body)).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringContaining(field),
      });
    }
    expect(await t.db.memoryEntry.count({ where: { accountId } })).toBe(0);
  });

  test('without the account header nothing is written', async () => {
    const before = await t.db.memoryEntry.count();
    await expect(
      t.ask(BrainSubjects.memoryCreate, {}, { body: { content: 'orphan' } }),
    ).rejects.toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
    expect(await t.db.memoryEntry.count()).toBe(before);
  });
});
