/**
 * The brain's one full-text search (src/store/search.ts) against a real PostgreSQL with the
 * brain's migrations: ranking, English stemming, highlights between « and », texts without
 * searchable words, paging and tenancy. No bus here (the nats project skips this file).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { applyMigrations, createPrismaClient } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { brainDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import { searchKnowledge, searchMemory } from '../src/store/search.ts';
import { addDocument } from './support/seed.ts';

let postgres: TestPostgres;
let db: PrismaClient;
beforeAll(async () => {
  postgres = await startTestPostgres();
  await applyMigrations({ ...brainDatabase, databaseUrl: postgres.url });
  db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: brainDatabase.schema });
}, 60_000);
afterAll(async () => {
  await db?.$disconnect();
  await postgres?.stop();
});

const page = { limit: 10, offset: 0 };
let seq = 0;
async function addMemory(accountId: string, content: string, agentId: string | null = null): Promise<string> {
  seq += 1;
  const id = `mem_search${String(seq).padStart(14, '0')}`;
  await db.memoryEntry.create({ data: { id, accountId, agentId, content } });
  return id;
}

describe('searchKnowledge', () => {
  test('ranks a document matching more of the words first; a title match outweighs a content match', async () => {
    const accountId = randomUUID();
    const gardening = await addDocument(db, accountId, {
      title: 'Gardening',
      kind: 'other',
      content: 'Tomatoes want sun. Water the roses on Sundays.',
    });
    const coffee = await addDocument(db, accountId, {
      title: 'Coffee',
      kind: 'preferences',
      content: 'Alice drinks her coffee black, no sugar, before meetings.',
    });
    const meetings = await addDocument(db, accountId, {
      title: 'Meetings',
      kind: 'preferences',
      content: 'Alice prefers meetings after ten; bring coffee.',
    });
    const oneWord = await addDocument(db, accountId, {
      title: 'Bob',
      kind: 'contacts',
      content: 'Bob roasts his own coffee at home, every week, in a small pan over the stove.',
    });
    await addDocument(db, accountId, { title: 'Unrelated', kind: 'other', content: 'Bicycles and trains.' });

    const hits = await searchKnowledge(db, accountId, 'coffee meetings', page);
    expect(
      hits
        .map((hit) => hit.id)
        .slice(0, 2)
        .sort(),
    ).toEqual([coffee, meetings].sort());
    expect(hits.map((hit) => hit.id)[2]).toBe(oneWord);
    expect(hits).toHaveLength(3);
    const ranks = hits.map((hit) => hit.rank);
    expect(ranks).toEqual([...ranks].sort((x, y) => y - x));
    expect(ranks[2]).toBeLessThan(ranks[1] ?? 0);

    const titled = await searchKnowledge(db, accountId, 'gardening roses', page);
    expect(titled.map((hit) => hit.id)).toEqual([gardening]);

    // The title (weight A) beats the same word in the content (weight B).
    const byTitle = await searchKnowledge(db, accountId, 'meetings', page);
    expect(byTitle[0]?.id).toBe(meetings);
  });

  test('stems English words: "running" finds "runs", "cycled" finds "cycling"', async () => {
    const accountId = randomUUID();
    const doc = await addDocument(db, accountId, {
      title: 'Sport',
      kind: 'skills',
      content: 'Bob runs marathons and enjoys cycling.',
    });
    expect((await searchKnowledge(db, accountId, 'running', page)).map((hit) => hit.id)).toEqual([doc]);
    expect((await searchKnowledge(db, accountId, 'cycled', page)).map((hit) => hit.id)).toEqual([doc]);
  });

  test('the highlight marks the matched words between « and », taken from the content', async () => {
    const accountId = randomUUID();
    await addDocument(db, accountId, {
      title: 'Travel',
      kind: 'preferences',
      content: 'Window seat on trains, aisle seat on planes. Never a night train.',
    });
    const [hit] = await searchKnowledge(db, accountId, 'trains', page);
    expect(hit?.highlight).toContain('«trains»');
    expect(hit?.highlight).toContain('«train»');
    expect(hit).toMatchObject({ title: 'Travel', kind: 'preferences', createdAt: expect.any(Date) });
  });

  test('a title-only match still has a highlight, from the title', async () => {
    const accountId = randomUUID();
    await addDocument(db, accountId, { title: 'Holidays', kind: 'other', content: 'Two weeks in August.' });
    const [hit] = await searchKnowledge(db, accountId, 'holiday', page);
    expect(hit?.highlight).toContain('«Holidays»');
  });

  test('a text of stop words, punctuation or nothing matches nothing (no error)', async () => {
    const accountId = randomUUID();
    await addDocument(db, accountId, { title: 'The and of', kind: 'other', content: 'It is what it is.' });
    expect(await searchKnowledge(db, accountId, 'the and of it is', page)).toEqual([]);
    expect(await searchKnowledge(db, accountId, '?! …', page)).toEqual([]);
    expect(await searchKnowledge(db, accountId, '', page)).toEqual([]);
  });

  test('quotes, operators and backslashes in the text are words, not query syntax', async () => {
    const accountId = randomUUID();
    const doc = await addDocument(db, accountId, {
      title: 'Quotes',
      kind: 'other',
      content: "O'Brien & co: a|b !c",
    });
    expect((await searchKnowledge(db, accountId, "o'brien & | ! ( ) \\ :*", page)).map((h) => h.id)).toEqual([
      doc,
    ]);
  });

  test('pages by limit and offset, in a stable order (ties by id)', async () => {
    const accountId = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push(
        await addDocument(db, accountId, { title: `Note ${i}`, kind: 'other', content: 'same words here' }),
      );
    const first = await searchKnowledge(db, accountId, 'words', { limit: 3, offset: 0 });
    const second = await searchKnowledge(db, accountId, 'words', { limit: 3, offset: 3 });
    expect([...first, ...second].map((hit) => hit.id)).toEqual([...ids].sort());
  });

  test("never finds another account's documents", async () => {
    const a = randomUUID();
    const b = randomUUID();
    await addDocument(db, a, { title: 'Secret plan', kind: 'projects', content: 'The secret plan of A.' });
    expect(await searchKnowledge(db, b, 'secret plan', page)).toEqual([]);
  });
});

describe('searchMemory', () => {
  test('ranks, stems and highlights memory entries; narrows to one agent (null: without one)', async () => {
    const accountId = randomUUID();
    const both = await addMemory(accountId, 'Alice likes green tea in the mornings.', 'agent-x');
    const one = await addMemory(accountId, 'Green is her favourite colour.', null);
    await addMemory(accountId, 'Nothing to see.', 'agent-x');

    const hits = await searchMemory(db, accountId, 'green teas', page);
    expect(hits.map((hit) => hit.id)).toEqual([both, one]);
    expect(hits[0]?.highlight).toContain('«green» «tea»');
    expect(hits[0]).toMatchObject({ agentId: 'agent-x', createdAt: expect.any(Date) });

    expect(
      (await searchMemory(db, accountId, 'green', { ...page, agentId: 'agent-x' })).map((h) => h.id),
    ).toEqual([both]);
    expect((await searchMemory(db, accountId, 'green', { ...page, agentId: null })).map((h) => h.id)).toEqual(
      [one],
    );
  });

  test("stop words only match nothing; another account's entries are never found", async () => {
    const a = randomUUID();
    await addMemory(a, 'The meeting moved to Friday.');
    expect(await searchMemory(db, a, 'the to', page)).toEqual([]);
    expect(await searchMemory(db, randomUUID(), 'meeting friday', page)).toEqual([]);
  });
});
