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
    const memory = JSON.parse(memoryJson) as MemoryEntry[];
    expect(memory.map((entry) => entry.id)).toEqual(written.reverse());
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
