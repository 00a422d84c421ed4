import { describe, expect, test } from '@jest/globals';
import { expiryCache, setUntil } from './expiry-cache.ts';

let clock = 1_700_000_000_000;
const now = () => clock;

describe('expiry cache', () => {
  test('an entry is returned until the millisecond before its end, never at it', () => {
    const cache = expiryCache<string>(10, now);
    setUntil(cache, 'a', 'A', clock + 5_000);
    clock += 4_999;
    expect(cache.get('a')).toBe('A');
    clock += 1;
    expect(cache.get('a')).toBeUndefined();
  });

  test('an entry ending one millisecond from now still ends', () => {
    const cache = expiryCache<string>(10, now);
    setUntil(cache, 'a', 'A', clock + 1);
    expect(cache.get('a')).toBe('A');
    clock += 1;
    expect(cache.get('a')).toBeUndefined();
  });

  test('an end already past stores nothing and forgets what the key held', () => {
    const cache = expiryCache<string>(10, now);
    setUntil(cache, 'a', 'A', clock + 1_000);
    setUntil(cache, 'a', 'B', clock);
    expect(cache.get('a')).toBeUndefined();
  });

  test('the least recently used entry leaves first when full', () => {
    const cache = expiryCache<string>(2, now);
    setUntil(cache, 'a', 'A', clock + 1_000);
    setUntil(cache, 'b', 'B', clock + 1_000);
    expect(cache.get('a')).toBe('A');
    setUntil(cache, 'c', 'C', clock + 1_000);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('A');
    expect(cache.get('c')).toBe('C');
  });
});
