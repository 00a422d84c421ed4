/**
 * brain.knowledge.list: the calling account's documents, most recently updated first, for a
 * token with the `knowledge` scope (checked again here, with the contracts' matcher).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { KnowledgeBase } from '@pag/contracts';
import {
  BRAIN_PAGE_DEFAULT,
  BrainOwnerEndpoints,
  BrainSubjects,
  KnowledgeBase as KnowledgeBaseSchema,
} from '@pag/contracts';
import { addDocument } from './support/seed.ts';
import type { Caller, TestBrain } from './support/start-test-brain.ts';
import { startTestBrain } from './support/start-test-brain.ts';

let t: TestBrain;
beforeAll(async () => {
  t = await startTestBrain();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

const list = (caller: Caller, query: Record<string, string> = {}) =>
  t.ask<KnowledgeBase>(BrainSubjects.knowledgeList, caller, { query });
const ownerList = (request: Record<string, unknown>) =>
  t.bus.request<KnowledgeBase>(BrainOwnerEndpoints.knowledgeList.subject, request, { timeoutMs: 5_000 });

/** Every page of a listing, following nextCursor. */
async function allPages(
  accountId: string,
  query: Record<string, string>,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const page: KnowledgeBase = await list({ accountId }, cursor === null ? query : { ...query, cursor });
    ids.push(...page.documents.map((d) => d.id));
    pages += 1;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return { ids, pages };
}

describe('brain.knowledge.list', () => {
  test('lists the documents, most recently updated first', async () => {
    const accountId = t.auth.addAccount('kb@example.com');
    const older = await addDocument(t.db, accountId, {
      title: 'Preferences',
      kind: 'preferences',
      content: 'Tea, not coffee.',
      updatedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const newer = await addDocument(t.db, accountId, {
      title: 'Skills',
      kind: 'skills',
      content: '- TypeScript',
      updatedAt: new Date('2026-06-01T00:00:00Z'),
    });
    const reply = await list({ accountId, scopes: 'knowledge' });
    expect(KnowledgeBaseSchema.parse(reply)).toEqual(reply);
    expect(reply.documents.map((d) => d.id)).toEqual([newer, older]);
    expect(reply.documents[1]).toEqual({
      createdAt: expect.any(String),
      id: older,
      title: 'Preferences',
      kind: 'preferences',
      content: 'Tea, not coffee.',
      updatedAt: '2026-01-01T00:00:00.000Z',
    });
  });

  test('an account without documents gets an empty list', async () => {
    expect(await list({ accountId: t.auth.addAccount('empty@example.com') })).toEqual({
      documents: [],
      nextCursor: null,
    });
  });

  test("account B never lists account A's documents", async () => {
    const a = t.auth.addAccount('kb.a@example.com');
    const b = t.auth.addAccount('kb.b@example.com');
    await addDocument(t.db, a, { title: 'A only', kind: 'identity', content: 'secret' });
    expect(await list({ accountId: b })).toEqual({ documents: [], nextCursor: null });
  });

  test('a token without the knowledge scope is refused even if the sender skipped the check', async () => {
    const accountId = t.auth.addAccount('noscope@example.com');
    await expect(list({ accountId, scopes: 'services:github:read' })).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
      message: expect.stringContaining('knowledge'),
    });
    await expect(list({ accountId, scopes: '' })).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
  });

  test('without the account header: AUTHENTICATION_REQUIRED', async () => {
    await expect(list({})).rejects.toMatchObject({ code: 'AUTHENTICATION_REQUIRED' });
  });

  test('pages by keyset: 20 by default, ?limit= up to 100, every document once, newest first', async () => {
    const accountId = t.auth.addAccount('kb.pages@example.com');
    const ids: string[] = [];
    // 25 documents, three of them updated in the same millisecond (ties go by id).
    for (let i = 0; i < 25; i += 1) {
      const updatedAt = new Date(Date.UTC(2026, 0, 1, 0, 0, i < 3 ? 0 : i));
      ids.push(
        await addDocument(t.db, accountId, { title: `Doc ${i}`, kind: 'other', content: `n${i}`, updatedAt }),
      );
    }
    const expected = [...ids.slice(3).reverse(), ...ids.slice(0, 3).sort()];
    const first = await list({ accountId });
    expect(first.documents).toHaveLength(BRAIN_PAGE_DEFAULT);
    expect(first.nextCursor).toEqual(expect.any(String));
    expect(await allPages(accountId, {})).toEqual({ ids: expected, pages: 2 });
    expect(await allPages(accountId, { limit: '7' })).toEqual({ ids: expected, pages: 4 });
    expect(await allPages(accountId, { limit: '100' })).toEqual({ ids: expected, pages: 1 });
    // A document added between two pages appears on neither, and none repeats.
    const page1 = await list({ accountId }, { limit: '5' });
    await addDocument(t.db, accountId, { title: 'Newest', kind: 'other', content: 'x' });
    const page2 = await list({ accountId }, { limit: '5', cursor: page1.nextCursor ?? '' });
    expect([...page1.documents, ...page2.documents].map((d) => d.id)).toEqual(expected.slice(0, 10));
  });

  test('?q= finds by full-text search, best first, with rank and highlight, paged by its own cursor', async () => {
    const accountId = t.auth.addAccount('kb.search@example.com');
    const best = await addDocument(t.db, accountId, {
      title: 'Travel preferences',
      kind: 'preferences',
      content: 'Prefers trains to planes; a window seat on trains.',
    });
    const next = await addDocument(t.db, accountId, {
      title: 'Commute',
      kind: 'other',
      content: 'Takes the train to work.',
    });
    await addDocument(t.db, accountId, { title: 'Food', kind: 'preferences', content: 'Vegetarian.' });
    const reply = await list({ accountId }, { q: 'train', limit: '1' });
    expect(KnowledgeBaseSchema.parse(reply)).toEqual(reply);
    expect(reply.documents).toEqual([
      expect.objectContaining({
        id: best,
        rank: expect.any(Number),
        highlight: expect.stringContaining('«trains»'),
      }),
    ]);
    const second = await list({ accountId }, { q: 'train', limit: '1', cursor: reply.nextCursor ?? '' });
    expect(second.documents.map((d) => d.id)).toEqual([next]);
    expect(second.nextCursor).toBeNull();
    expect(await list({ accountId }, { q: 'the of and' })).toEqual({ documents: [], nextCursor: null });
  });

  test('a malformed cursor, or one of the other listing, is 400 naming cursor', async () => {
    const accountId = t.auth.addAccount('kb.cursor@example.com');
    for (let i = 0; i < 3; i += 1)
      await addDocument(t.db, accountId, { title: `Train ${i}`, kind: 'other', content: 'train' });
    const plain = await list({ accountId }, { limit: '1' });
    const searched = await list({ accountId }, { q: 'train', limit: '1' });
    const queries: Record<string, string>[] = [
      { cursor: 'not-a-cursor' },
      { cursor: Buffer.from('{"o":-1}').toString('base64url'), q: 'train' },
      { cursor: searched.nextCursor ?? '' },
      { cursor: plain.nextCursor ?? '', q: 'train' },
    ];
    for (const query of queries) {
      await expect(list({ accountId }, query)).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
        status: 400,
        message: expect.stringContaining('cursor'),
      });
    }
    await expect(list({ accountId }, { limit: '101' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  test("the owner's listing is the same listing, for the account it names only", async () => {
    const a = t.auth.addAccount('kb.owner.a@example.com');
    const b = t.auth.addAccount('kb.owner.b@example.com');
    const doc = await addDocument(t.db, a, {
      title: 'Garden',
      kind: 'other',
      content: 'Roses and tomatoes.',
    });
    expect(await ownerList({ accountId: a, limit: 20 })).toEqual(await list({ accountId: a }));
    expect((await ownerList({ accountId: a, q: 'rose', limit: 5 })).documents.map((d) => d.id)).toEqual([
      doc,
    ]);
    expect(await ownerList({ accountId: b, q: 'rose', limit: 5 })).toEqual({
      documents: [],
      nextCursor: null,
    });
    expect(await ownerList({ accountId: b, limit: 5 })).toEqual({ documents: [], nextCursor: null });
  });
});
