import { describe, expect, test } from '@jest/globals';
import { UsageLease } from './usage-lease.ts';
import { usageWindows } from './usage-windows.ts';

const now = new Date('2026-11-30T12:00:00.000Z');
const windows = usageWindows(now);
const answer = (taken: number, granted: number, count: number, reserved: number) => ({
  taken,
  granted,
  count: { day: count, month: count },
  reserved: { day: reserved, month: reserved },
});

describe("a replica's lease on an agent's allowance", () => {
  test('serves from its block without asking, and counts what it served as used, never what it holds', () => {
    const lease = new UsageLease(windows, { daily: 50, monthly: null });
    expect(lease.tryServe(now)).toBe(false);
    // Its first statement counted the waiting request and reserved 3; another replica holds 2.
    lease.apply(answer(1, 3, 1, 5));
    expect(lease.used()).toEqual({ day: 1, month: 1 });
    expect(lease.remaining()).toEqual({ day: 47, month: Infinity });
    expect(lease.tryServe(now)).toBe(true);
    expect(lease.tryServe(now)).toBe(true);
    expect(lease.used()).toEqual({ day: 3, month: 3 });
    expect(lease.remaining()).toEqual({ day: 45, month: Infinity });
    expect(lease.tryServe(now)).toBe(true);
    expect(lease.tryServe(now)).toBe(false);
    expect(lease.remaining().day).toBe(44);
  });

  test('renews when half of its last block is gone; blocks of one are never renewed ahead', () => {
    const lease = new UsageLease(windows, { daily: 1000, monthly: null });
    lease.apply(answer(1, 4, 1, 4));
    expect(lease.wantsRenewal()).toBe(false);
    lease.tryServe(now);
    expect(lease.wantsRenewal()).toBe(false);
    lease.tryServe(now);
    expect(lease.wantsRenewal()).toBe(true);
    const single = new UsageLease(windows, { daily: 10, monthly: null });
    single.apply(answer(1, 1, 9, 1));
    expect(single.wantsRenewal()).toBe(false);
  });

  test('a settlement moves what was served out of the block; a failed one is put back whole', () => {
    const lease = new UsageLease(windows, { daily: 100, monthly: 1000 });
    lease.apply(answer(1, 5, 1, 5));
    lease.tryServe(now);
    lease.tryServe(now);
    const settlement = lease.settlement(true);
    expect(settlement).toEqual({ settle: 2, release: 3, servedAt: now });
    expect([lease.available, lease.served]).toEqual([0, 0]);
    lease.restore(settlement);
    expect([lease.available, lease.served]).toEqual([3, 2]);
  });

  test('while a statement is under way the block keeps serving, and its answer accounts for that', () => {
    const lease = new UsageLease(windows, { daily: 100, monthly: null });
    lease.apply(answer(1, 10, 1, 10));
    for (let i = 0; i < 6; i += 1) lease.tryServe(now);
    lease.settlement(false); // settles 6: the rows will say count 7, reserved 4 + the new block
    lease.tryServe(now); // served meanwhile, settled next time
    lease.apply(answer(0, 5, 7, 9));
    expect(lease.used().day).toBe(8);
    // 100 - 8 served - 0 held by others
    expect(lease.remaining().day).toBe(92);
  });

  test('a refusal is final only when the units were served, not when another replica holds them', () => {
    const held = new UsageLease(windows, { daily: 10, monthly: null });
    held.apply(answer(0, 0, 8, 2));
    expect(held.remaining().day).toBe(0);
    expect(held.servedOut()).toBe(false);
    const out = new UsageLease(windows, { daily: 10, monthly: 500 });
    out.apply(answer(0, 0, 10, 0));
    expect(out.servedOut()).toBe(true);
  });

  test('applies to its windows and limits only', () => {
    const lease = new UsageLease(windows, { daily: 10, monthly: null });
    expect(lease.fits(windows, { daily: 10, monthly: null })).toBe(true);
    expect(lease.fits(windows, { daily: 11, monthly: null })).toBe(false);
    expect(lease.fits(usageWindows(new Date('2026-12-01T00:00:00.000Z')), lease.limits)).toBe(false);
  });
});
