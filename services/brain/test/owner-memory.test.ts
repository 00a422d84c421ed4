/**
 * The owner's memory (BrainOwnerEndpoints.memoryList/Delete/Clear) and an agent deleting its own
 * entries (brain.memory.delete, DELETE /api/v1/memory/:id): pages newest first, search, the agent
 * filter, the count of all; deleting one or every entry of one agent; an agent deletes only what
 * it wrote, anything else is 404 as if it never existed; tenancy throughout.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { BrainContext, MemoryEntry, OwnerMemoryPage } from '@pag/contracts';
import { BrainOwnerEndpoints, BrainSubjects } from '@pag/contracts';
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
const write = (accountId: string, content: string, agentId?: string) =>
  t.ask<MemoryEntry>(BrainSubjects.memoryCreate, { accountId, agentId }, { body: { content } });
const page = (
  accountId: string,
  query: { q?: string; agentId?: string; limit?: number; cursor?: string } = {},
) => t.askOwner(E.memoryList, { accountId, limit: 20, ...query });
const agentDelete = (accountId: string, id: string, agentId?: string) =>
  t.ask(BrainSubjects.memoryDelete, { accountId, agentId }, { params: { id } });
const count = async (accountId: string) =>
  (await t.ask<BrainContext>(BrainSubjects.contextGet, { accountId })).memoryCount;

/** Every page of a listing, following nextCursor. */
async function allPages(accountId: string, query: { q?: string; agentId?: string; limit: number }) {
  const pages: OwnerMemoryPage[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(accountId, { ...query, ...(cursor === undefined ? {} : { cursor }) });
    pages.push(next);
    cursor = next.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

describe('brain.owner-memory.list', () => {
  test('pages newest first with each entry’s agent; entries written meanwhile do not shift the pages', async () => {
    const accountId = t.auth.addAccount('mem.list@example.com');
    const written: MemoryEntry[] = [];
    for (let i = 0; i < 5; i += 1)
      written.push(await write(accountId, `note ${i}`, i % 2 === 0 ? 'ag_even' : undefined));
    const first = await page(accountId, { limit: 2 });
    expect(first.entries.map((e) => [e.content, e.agentId])).toEqual([
      ['note 4', 'ag_even'],
      ['note 3', null],
    ]);
    expect(first.total).toBe(5);
    await write(accountId, 'written meanwhile');
    const rest = await allPages(accountId, { limit: 2 });
    expect(rest.flatMap((p) => p.entries.map((e) => e.content))).toEqual([
      'written meanwhile',
      'note 4',
      'note 3',
      'note 2',
      'note 1',
      'note 0',
    ]);
    const second = await page(accountId, { limit: 2, cursor: first.nextCursor ?? '' });
    expect(second.entries.map((e) => e.content)).toEqual(['note 2', 'note 1']);
    expect(rest.at(-1)?.nextCursor).toBeNull();
  });

  test('agentId narrows to one agent, "" to entries without one; total counts every entry', async () => {
    const accountId = t.auth.addAccount('mem.filter@example.com');
    await write(accountId, 'by x', 'ag_x');
    await write(accountId, 'by nobody');
    await write(accountId, 'by y', 'ag_y');
    const byX = await page(accountId, { agentId: 'ag_x' });
    expect(byX.entries.map((e) => e.content)).toEqual(['by x']);
    expect(byX.total).toBe(3);
    expect((await page(accountId, { agentId: '' })).entries.map((e) => e.content)).toEqual(['by nobody']);
  });

  test('q searches with the full-text search, highlights, pages and honours the agent filter', async () => {
    const accountId = t.auth.addAccount('mem.search@example.com');
    await write(accountId, 'The owner likes green tea in the morning.', 'ag_a');
    await write(accountId, 'Meeting with Bob about the budget.', 'ag_a');
    await write(accountId, 'Tea with Carol on Friday.', 'ag_b');
    const hits = await page(accountId, { q: 'tea' });
    expect(hits.entries.map((e) => e.content).sort()).toEqual([
      'Tea with Carol on Friday.',
      'The owner likes green tea in the morning.',
    ]);
    expect(hits.entries[0]?.highlight).toMatch(/«tea»/i);
    expect(hits.total).toBe(3);
    const paged = await allPages(accountId, { q: 'tea', limit: 1 });
    expect(paged.map((p) => p.entries.length)).toEqual([1, 1]);
    expect((await page(accountId, { q: 'tea', agentId: 'ag_b' })).entries.map((e) => e.content)).toEqual([
      'Tea with Carol on Friday.',
    ]);
  });

  test('a cursor that is not one of this listing is a 400 naming cursor', async () => {
    const accountId = t.auth.addAccount('mem.cursor@example.com');
    for (const cursor of ['nonsense', 'o5', 'b-1']) {
      await expect(page(accountId, { cursor })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        message: expect.stringContaining('cursor'),
      });
    }
    await expect(page(accountId, { q: 'x', cursor: 'b5' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });
});

describe('the owner deletes memory', () => {
  test('one entry, whichever agent wrote it; the count follows', async () => {
    const accountId = t.auth.addAccount('mem.delete@example.com');
    const entry = await write(accountId, 'to delete', 'ag_a');
    await write(accountId, 'to keep', 'ag_b');
    expect(await t.askOwner(E.memoryDelete, { accountId, id: entry.id })).toEqual({
      id: entry.id,
      deleted: true,
    });
    expect((await page(accountId)).entries.map((e) => e.content)).toEqual(['to keep']);
    expect(await count(accountId)).toBe(1);
    await expect(t.askOwner(E.memoryDelete, { accountId, id: entry.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  test('every entry of one agent, or every entry written without an agent', async () => {
    const accountId = t.auth.addAccount('mem.clear@example.com');
    await write(accountId, 'a1', 'ag_a');
    await write(accountId, 'a2', 'ag_a');
    await write(accountId, 'none');
    await write(accountId, 'b1', 'ag_b');
    expect(await t.askOwner(E.memoryClear, { accountId, agentId: 'ag_a' })).toEqual({ deleted: 2 });
    expect(await t.askOwner(E.memoryClear, { accountId, agentId: null })).toEqual({ deleted: 1 });
    expect((await page(accountId)).entries.map((e) => e.content)).toEqual(['b1']);
    expect(await count(accountId)).toBe(1);
  });
});

describe('brain.memory.delete (an agent deletes its own entries)', () => {
  test('an agent deletes an entry it wrote', async () => {
    const accountId = t.auth.addAccount('mem.own@example.com');
    const entry = await write(accountId, 'mine', 'ag_me');
    expect(await agentDelete(accountId, entry.id, 'ag_me')).toEqual({ id: entry.id, deleted: true });
    expect(await t.db.memoryEntry.count({ where: { accountId } })).toBe(0);
  });

  test("another agent's entry, even of the same owner, is 404 like one that never existed", async () => {
    const accountId = t.auth.addAccount('mem.other@example.com');
    const theirs = await write(accountId, 'theirs', 'ag_them');
    const withoutAgent = await write(accountId, 'no agent');
    const refusals = await Promise.all([
      agentDelete(accountId, theirs.id, 'ag_me').catch((e: unknown) => e),
      agentDelete(accountId, theirs.id).catch((e: unknown) => e),
      agentDelete(accountId, withoutAgent.id, 'ag_me').catch((e: unknown) => e),
      agentDelete(accountId, 'mem_neverexisted', 'ag_me').catch((e: unknown) => e),
    ]);
    for (const refusal of refusals) expect(refusal).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    // The same words whether the entry exists or not, apart from the id named.
    const texts = refusals.map((r) => (r as Error).message.replace(/mem_\S+/, 'ID'));
    expect(new Set(texts).size).toBe(1);
    expect(await t.db.memoryEntry.count({ where: { accountId } })).toBe(2);
  });

  test('a token without an agent deletes only entries written without an agent', async () => {
    const accountId = t.auth.addAccount('mem.noagent@example.com');
    const entry = await write(accountId, 'no agent');
    expect(await agentDelete(accountId, entry.id)).toEqual({ id: entry.id, deleted: true });
  });
});

describe('tenancy', () => {
  test("account B neither lists, searches, deletes nor clears account A's memory", async () => {
    const a = t.auth.addAccount('mem.tenant.a@example.com');
    const b = t.auth.addAccount('mem.tenant.b@example.com');
    const secret = await write(a, 'A secret about tea', 'ag_shared');
    expect(await page(b)).toEqual({ entries: [], nextCursor: null, total: 0 });
    expect((await page(b, { q: 'tea' })).entries).toEqual([]);
    await expect(t.askOwner(E.memoryDelete, { accountId: b, id: secret.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(agentDelete(b, secret.id, 'ag_shared')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await t.askOwner(E.memoryClear, { accountId: b, agentId: 'ag_shared' })).toEqual({ deleted: 0 });
    expect((await page(a)).entries.map((e) => e.id)).toEqual([secret.id]);
  });
});
