import { describe, expect, test } from '@jest/globals';
import { RecentRefusals } from './recent-refusals.ts';
import { brokenLimits, usageWindows } from './usage-windows.ts';

const tonight = new Date('2026-11-23T23:00:00Z');
const limits = { daily: 3, monthly: 100 };

function refusedTonight(refusals: RecentRefusals, agent = 'acc\nagt') {
  const windows = usageWindows(tonight);
  const broken = brokenLimits(limits, { day: 4, month: 40 }, windows);
  refusals.remember(agent, limits, windows, broken);
  return broken;
}

describe('recent refusals', () => {
  test('hold within the window of the broken limit, under the same limits', () => {
    const refusals = new RecentRefusals();
    const broken = refusedTonight(refusals);
    expect(refusals.stillBroken('acc\nagt', limits, usageWindows(new Date('2026-11-23T23:59:59Z')))).toEqual(
      broken,
    );
    expect(refusals.stillBroken('acc\nother', limits, usageWindows(tonight))).toEqual([]);
  });

  test('end when the window resets or the owner changes the limit', () => {
    const refusals = new RecentRefusals();
    refusedTonight(refusals);
    expect(refusals.stillBroken('acc\nagt', limits, usageWindows(new Date('2026-11-24T00:00:00Z')))).toEqual(
      [],
    );
    refusedTonight(refusals);
    expect(refusals.stillBroken('acc\nagt', { daily: 10, monthly: 100 }, usageWindows(tonight))).toEqual([]);
  });

  test('are bounded: the oldest leaves first', () => {
    const refusals = new RecentRefusals(2);
    for (const agent of ['a', 'b', 'c']) refusedTonight(refusals, agent);
    expect(refusals.stillBroken('a', limits, usageWindows(tonight))).toEqual([]);
    expect(refusals.stillBroken('c', limits, usageWindows(tonight))).toHaveLength(1);
  });
});
