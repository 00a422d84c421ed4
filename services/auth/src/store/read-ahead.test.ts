import { describe, expect, test } from '@jest/globals';
import { ReadAhead } from './read-ahead.ts';

describe('read-ahead', () => {
  test('a grant read with its token serves one lookup, within a second', () => {
    let now = 1_000;
    const cache = new ReadAhead(() => now);
    cache.keepGrant('g', { jti: 'g' });
    expect(cache.takeGrant('g')).toEqual({ payload: { jti: 'g' }, until: 2_000 });
    expect(cache.takeGrant('g')).toBeUndefined();
    cache.keepGrant('g', undefined);
    expect(cache.takeGrant('g')).toEqual({ payload: undefined, until: 2_000 });
    cache.keepGrant('g', { jti: 'g' });
    now = 2_000;
    expect(cache.takeGrant('g')).toBeUndefined();
  });

  test('writing a grant or a client drops what was read ahead', () => {
    const cache = new ReadAhead(() => 0);
    cache.keepGrant('g', { jti: 'g' });
    cache.forgetGrant('g');
    expect(cache.takeGrant('g')).toBeUndefined();
    cache.keepClient('c', { client_id: 'c' });
    expect(cache.client('c')?.payload).toEqual({ client_id: 'c' });
    cache.forgetClient('c');
    expect(cache.client('c')).toBeUndefined();
  });

  test('clients are kept a minute, and only those that exist', () => {
    let now = 0;
    const cache = new ReadAhead(() => now);
    cache.keepClient('missing', undefined);
    expect(cache.client('missing')).toBeUndefined();
    cache.keepClient('c', { client_id: 'c' });
    now = 59_999;
    expect(cache.client('c')).toBeDefined();
    now = 60_000;
    expect(cache.client('c')).toBeUndefined();
  });

  test('the absence of a refresh token is kept 100 ms, for one use, and forgotten on a write', () => {
    let now = 0;
    const cache = new ReadAhead(() => now);
    cache.keepRefreshAbsent('k');
    expect(cache.takeRefreshAbsent('k')).toBe(true);
    expect(cache.takeRefreshAbsent('k')).toBe(false);
    cache.keepRefreshAbsent('k');
    now = 100;
    expect(cache.takeRefreshAbsent('k')).toBe(false);
    cache.keepRefreshAbsent('k');
    cache.forgetRefreshAbsent('k');
    expect(cache.takeRefreshAbsent('k')).toBe(false);
  });
});
