import { describe, expect, test } from '@jest/globals';
import { BlockedAddresses } from './blocked-addresses.ts';

describe('BlockedAddresses', () => {
  test('a blocked address waits the whole seconds left; others and ended blocks wait nothing', () => {
    const blocked = new BlockedAddresses();
    blocked.block('203.0.113.7', 60_000);
    expect(blocked.retryAfterSeconds('203.0.113.7', 0)).toBe(60);
    expect(blocked.retryAfterSeconds('203.0.113.7', 59_001)).toBe(1);
    expect(blocked.retryAfterSeconds('203.0.113.8', 0)).toBe(0);
    expect(blocked.retryAfterSeconds('203.0.113.7', 60_000)).toBe(0);
    expect(blocked.size).toBe(0);
  });

  test('the later of two blocks wins', () => {
    const blocked = new BlockedAddresses();
    blocked.block('a', 30_000);
    blocked.block('a', 10_000);
    expect(blocked.retryAfterSeconds('a', 0)).toBe(30);
    blocked.block('a', 40_000);
    expect(blocked.retryAfterSeconds('a', 0)).toBe(40);
  });

  test('prune forgets ended blocks; past the bound the block ending first goes', () => {
    const blocked = new BlockedAddresses(2);
    blocked.block('a', 10_000);
    blocked.block('b', 5_000);
    blocked.block('c', 20_000);
    expect(blocked.retryAfterSeconds('b', 0)).toBe(0);
    expect(blocked.size).toBe(2);
    blocked.prune(15_000);
    expect(blocked.size).toBe(1);
    expect(blocked.retryAfterSeconds('c', 15_000)).toBe(5);
  });
});
