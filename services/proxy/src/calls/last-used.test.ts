import { expect, test } from '@jest/globals';
import { LastUsedBatch } from './last-used.ts';

test('many calls with one token are one write of the last call’s time; flush() writes at once', () => {
  const writes: [string, string, Date | undefined][] = [];
  const batch = new LastUsedBatch({
    touch: (accountId, tokenId, at) => writes.push([accountId, tokenId, at]),
  });
  for (let second = 1; second <= 50; second += 1) batch.used('acc', 'tok-1', new Date(second * 1000));
  batch.used('acc', 'tok-2', new Date(7_000));
  expect(writes).toEqual([]);
  batch.flush();
  expect(writes).toEqual([
    ['acc', 'tok-1', new Date(50_000)],
    ['acc', 'tok-2', new Date(7_000)],
  ]);
  batch.flush();
  expect(writes).toHaveLength(2);
});
