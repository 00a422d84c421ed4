/**
 * The owner's knowledge base (BrainOwnerEndpoints.knowledgeGet/Save/Delete): add, edit and delete
 * documents as the dashboard and `pag knowledge` do; what the agent's knowledge base then shows;
 * the kind and size checks; tenancy: another account's document is 404.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { KnowledgeBase } from '@pag/contracts';
import { BrainOwnerEndpoints, BrainSubjects, KNOWLEDGE_MAX_BYTES } from '@pag/contracts';
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
const agentView = async (accountId: string) =>
  (await t.ask<KnowledgeBase>(BrainSubjects.knowledgeList, { accountId })).documents;

describe('the owner’s knowledge documents', () => {
  test('adds, reads, edits and deletes a document; the agent’s knowledge base follows', async () => {
    const accountId = t.auth.addAccount('knowledge.owner@example.com');
    const added = await t.askOwner(E.knowledgeSave, {
      accountId,
      title: 'Coffee',
      kind: 'preferences',
      content: '# Coffee\n\nFlat white, no sugar.',
    });
    expect(added).toMatchObject({ id: expect.stringMatching(/^doc_/), title: 'Coffee', kind: 'preferences' });
    expect(added.createdAt).toBe(added.updatedAt);
    expect(await t.askOwner(E.knowledgeGet, { accountId, id: added.id })).toEqual(added);
    expect((await agentView(accountId)).map((d) => d.id)).toEqual([added.id]);

    const edited = await t.askOwner(E.knowledgeSave, {
      accountId,
      id: added.id,
      title: 'Coffee, really',
      kind: 'tea-and-coffee',
      content: 'Espresso.',
    });
    expect(edited).toMatchObject({
      id: added.id,
      title: 'Coffee, really',
      kind: 'tea-and-coffee',
      content: 'Espresso.',
    });
    expect(edited.createdAt).toBe(added.createdAt);
    expect(Date.parse(edited.updatedAt)).toBeGreaterThanOrEqual(Date.parse(added.updatedAt));
    expect((await agentView(accountId))[0]).toMatchObject({ title: 'Coffee, really' });

    expect(await t.askOwner(E.knowledgeDelete, { accountId, id: added.id })).toEqual({
      id: added.id,
      deleted: true,
    });
    expect(await agentView(accountId)).toEqual([]);
    await expect(t.askOwner(E.knowledgeGet, { accountId, id: added.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(t.askOwner(E.knowledgeDelete, { accountId, id: added.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  test('a kind that is not a lowercase label, or content over KNOWLEDGE_MAX_BYTES, is refused naming the field', async () => {
    const accountId = t.auth.addAccount('knowledge.invalid@example.com');
    const send = (message: object) =>
      t.authBus.request(E.knowledgeSave.subject, { accountId, title: 'T', ...message }, { timeoutMs: 5_000 });
    await expect(send({ kind: 'Not A Kind', content: 'x' })).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('kind'),
    });
    await expect(
      send({ kind: 'other', content: 'é'.repeat(KNOWLEDGE_MAX_BYTES / 2 + 1) }),
    ).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('content'),
    });
    expect(await t.db.knowledgeDocument.count({ where: { accountId } })).toBe(0);
  });
});

describe('tenancy', () => {
  test("account B can neither read, edit nor delete account A's document", async () => {
    const a = t.auth.addAccount('knowledge.a@example.com');
    const b = t.auth.addAccount('knowledge.b@example.com');
    const secret = await t.askOwner(E.knowledgeSave, {
      accountId: a,
      title: 'A',
      kind: 'other',
      content: 'A only.',
    });
    await expect(t.askOwner(E.knowledgeGet, { accountId: b, id: secret.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      t.askOwner(E.knowledgeSave, { accountId: b, id: secret.id, title: 'B', kind: 'other', content: 'B.' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(t.askOwner(E.knowledgeDelete, { accountId: b, id: secret.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await agentView(b)).toEqual([]);
    expect(await t.askOwner(E.knowledgeGet, { accountId: a, id: secret.id })).toEqual(secret);
  });
});
