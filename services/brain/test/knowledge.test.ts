/**
 * brain.knowledge.list: the calling account's documents, most recently updated first, for a
 * token with the `knowledge` scope (checked again here, with the contracts' matcher).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { KnowledgeBase } from '@pag/contracts';
import { BrainSubjects, KnowledgeBase as KnowledgeBaseSchema } from '@pag/contracts';
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

const list = (caller: Caller) => t.ask<KnowledgeBase>(BrainSubjects.knowledgeList, caller);

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
});
