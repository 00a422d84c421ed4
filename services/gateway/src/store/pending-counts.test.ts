import { describe, expect, test } from '@jest/globals';
import { usageWindows } from '../domain/usage-windows.ts';
import { PendingCounts } from './pending-counts.ts';

const beforeMidnight = new Date('2026-11-30T23:59:59.900Z');
const afterMidnight = new Date('2026-12-01T00:00:00.100Z');

describe('counts kept until the next flush', () => {
  test('sum per agent and window, each request filed under the windows it fell in', () => {
    const pending = new PendingCounts();
    const agent = { accountId: 'acc-1', clientId: 'agt_a' };
    pending.add(agent, usageWindows(beforeMidnight), beforeMidnight);
    pending.add(agent, usageWindows(beforeMidnight), beforeMidnight);
    pending.add(agent, usageWindows(afterMidnight), afterMidnight);
    expect(pending.drain()).toEqual([
      { ...agent, kind: 'day', windowStart: '2026-11-30', count: 2, lastAt: beforeMidnight },
      { ...agent, kind: 'day', windowStart: '2026-12-01', count: 1, lastAt: afterMidnight },
      { ...agent, kind: 'month', windowStart: '2026-11-01', count: 2, lastAt: beforeMidnight },
      { ...agent, kind: 'month', windowStart: '2026-12-01', count: 1, lastAt: afterMidnight },
    ]);
    expect(pending.size).toBe(0);
  });

  test('drain orders rows by the table key (account, agent, day before month), so writers lock alike', () => {
    const pending = new PendingCounts();
    const windows = usageWindows(beforeMidnight);
    for (const [accountId, clientId] of [
      ['b', 'x'],
      ['a', 'y'],
      ['a', 'x'],
    ] as const)
      pending.add({ accountId, clientId }, windows, beforeMidnight);
    expect(pending.drain().map((d) => `${d.accountId}/${d.clientId}/${d.kind}`)).toEqual([
      'a/x/day',
      'a/x/month',
      'a/y/day',
      'a/y/month',
      'b/x/day',
      'b/x/month',
    ]);
  });

  test('deltas put back after a failed write merge with the requests counted meanwhile', () => {
    const pending = new PendingCounts();
    const agent = { accountId: 'acc-1', clientId: 'agt_a' };
    const windows = usageWindows(beforeMidnight);
    pending.add(agent, windows, beforeMidnight);
    const failed = pending.drain();
    const later = new Date(beforeMidnight.getTime() + 50);
    pending.add(agent, windows, later);
    pending.restore(failed);
    expect(pending.drain().map(({ kind, count, lastAt }) => ({ kind, count, lastAt }))).toEqual([
      { kind: 'day', count: 2, lastAt: later },
      { kind: 'month', count: 2, lastAt: later },
    ]);
  });
});
