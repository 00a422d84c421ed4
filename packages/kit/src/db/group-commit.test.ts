/**
 * GroupCommit: writes submitted while a transaction is in flight share the next one; each caller
 * gets its own outcome only after its transaction; a failing write fails only its own caller.
 */
import { describe, expect, test } from '@jest/globals';
import { GroupCommit } from './group-commit.ts';

/** A stand-in transaction the test completes by hand, recording every batch it was given. */
function manualCommits() {
  const batches: number[][] = [];
  const pending: { items: readonly number[]; done(): void; fail(error: Error): void }[] = [];
  const commit = (items: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push([...items]);
      pending.push({ items, done: () => resolve(items.map((n) => n * 10)), fail: reject });
    });
  return { batches, pending, commit };
}

describe('GroupCommit', () => {
  test('the first write goes out alone at once; what arrives meanwhile is the next batch', async () => {
    const { batches, pending, commit } = manualCommits();
    const group = new GroupCommit({ commit, maxBatch: 100 });
    const first = group.write(1);
    expect(batches).toEqual([[1]]);
    const rest = [2, 3, 4].map((n) => group.write(n));
    expect(batches).toEqual([[1]]);
    pending[0]?.done();
    expect(await first).toBe(10);
    expect(batches).toEqual([[1], [2, 3, 4]]);
    pending[1]?.done();
    expect(await Promise.all(rest)).toEqual([20, 30, 40]);
  });

  test('a caller is answered only after the transaction that holds its write', async () => {
    const { pending, commit } = manualCommits();
    const group = new GroupCommit({ commit, maxBatch: 100 });
    let answered = false;
    const write = group.write(7).then(() => {
      answered = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    pending[0]?.done();
    await write;
    expect(answered).toBe(true);
  });

  test('a batch holds at most maxBatch writes', async () => {
    const { batches, pending, commit } = manualCommits();
    const group = new GroupCommit({ commit, maxBatch: 2 });
    const writes = [1, 2, 3, 4, 5, 6].map((n) => group.write(n));
    for (let i = 0; i < 4; i += 1) {
      pending[i]?.done();
      await writes[Math.min(2 * i, 5)];
    }
    expect(await Promise.all(writes)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(batches).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  test('a failed batch is written again one by one: only the failing write fails', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, number>({
      maxBatch: 100,
      commit: async (items) => {
        batches.push([...items]);
        if (items.includes(13)) throw new Error('constraint violated by 13');
        return items.map((n) => n * 10);
      },
    });
    const writes = [1, 12, 13, 14].map((n) => group.write(n));
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      10,
      120,
      'constraint violated by 13',
      140,
    ]);
    expect(batches).toEqual([[1], [12, 13, 14], [12], [13], [14]]);
  });

  test('a commit that answers the wrong number of outcomes is an error, not a silent mix-up', async () => {
    const group = new GroupCommit<number, number>({ maxBatch: 10, commit: async () => [] });
    await expect(group.write(1)).rejects.toThrow('a group commit of 1 items answered 0 outcomes');
  });

  test('writes after an idle spell start a new transaction at once', async () => {
    const { batches, pending, commit } = manualCommits();
    const group = new GroupCommit({ commit, maxBatch: 10 });
    const first = group.write(1);
    pending[0]?.done();
    await first;
    const second = group.write(2);
    expect(batches).toEqual([[1], [2]]);
    pending[1]?.done();
    expect(await second).toBe(20);
  });

  test('maxBatch must be a positive integer', () => {
    expect(() => new GroupCommit({ maxBatch: 0, commit: async () => [] })).toThrow(RangeError);
  });
});
