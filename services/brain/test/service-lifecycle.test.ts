/**
 * startBrain and close(): the brain answers its subjects once started, and close() stops
 * answering and gives back every database connection it held. (Chat: chat.test.ts and
 * chat-offline.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { BrainSubjects } from '@pag/contracts';
import { openConnections, openConnectionsOnceClosed } from '@pag/kit/testing';
import type { TestBrain } from './support/start-test-brain.ts';
import { startTestBrain } from './support/start-test-brain.ts';

let t: TestBrain;
beforeAll(async () => {
  t = await startTestBrain();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('service lifecycle', () => {
  test('close() stops answering and releases its database connections', async () => {
    const accountId = t.auth.addAccount('close@example.com');
    await t.ask(BrainSubjects.memoryCreate, { accountId }, { body: { content: 'before close' } });
    // The test's own client connects as pag-brain too; it holds one connection, the one asking.
    expect(await openConnections(t.db, 'pag-brain')).toBeGreaterThan(0);
    await t.brain.close();
    await expect(t.ask(BrainSubjects.contextGet, { accountId })).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(await openConnectionsOnceClosed(t.db, 'pag-brain')).toBe(0);
    await t.brain.close();
  });
});
