import { describe, expect, test } from '@jest/globals';
import type { Credential } from './connection.ts';
import { CredentialCache } from './credential-cache.ts';

const ACCOUNT = '6f1c1a52-2d0c-4a53-9d52-0d3f1b7a9c11';
const credential = (value: string, expiresAt: Date | null = null): Credential => ({
  tokenId: `token-${value}`,
  value,
  expiresAt,
});

/** A cache on a clock the test moves, and a loader that counts its calls. */
function setUp(options: { ttlMs?: number; maxEntries?: number } = {}) {
  let now = 1_000_000;
  const cache = new CredentialCache({ ...options, now: () => now });
  cache.setLive(true);
  const loads: string[] = [];
  const loader = (value: string) => async () => {
    loads.push(value);
    return credential(value);
  };
  return { cache, loads, loader, advance: (ms: number) => (now += ms), at: () => now };
}

describe('CredentialCache', () => {
  test('a credential is read once, then served from memory until its time is up', async () => {
    const { cache, loads, loader, advance } = setUp({ ttlMs: 5_000 });
    expect((await cache.get(ACCOUNT, 'github', loader('a'))).value).toBe('a');
    advance(4_999);
    expect((await cache.get(ACCOUNT, 'github', loader('b'))).value).toBe('a');
    advance(1);
    expect((await cache.get(ACCOUNT, 'github', loader('c'))).value).toBe('c');
    expect(loads).toEqual(['a', 'c']);
  });

  test('a burst of calls waits for one read', async () => {
    const { cache, loads, loader } = setUp();
    const values = await Promise.all(
      Array.from({ length: 20 }, () => cache.get(ACCOUNT, 'github', loader('a'))),
    );
    expect(values.map((v) => v.value)).toEqual(Array(20).fill('a'));
    expect(loads).toEqual(['a']);
  });

  test('invalidate(account, service) drops that entry only', async () => {
    const { cache, loads, loader } = setUp();
    await cache.get(ACCOUNT, 'github', loader('a'));
    await cache.get(ACCOUNT, 'slack', loader('s'));
    cache.invalidate(ACCOUNT, 'github');
    expect((await cache.get(ACCOUNT, 'github', loader('b'))).value).toBe('b');
    expect((await cache.get(ACCOUNT, 'slack', loader('t'))).value).toBe('s');
    expect(loads).toEqual(['a', 's', 'b']);
  });

  test('a read under way when a change is announced serves its call but is not kept', async () => {
    const { cache, loads, loader } = setUp();
    const slow = Promise.withResolvers<Credential>();
    const first = cache.get(ACCOUNT, 'github', () => slow.promise);
    cache.invalidate(ACCOUNT, 'github');
    // A call after the change does not wait for the read that started before it.
    expect((await cache.get(ACCOUNT, 'github', loader('new'))).value).toBe('new');
    slow.resolve(credential('old'));
    expect((await first).value).toBe('old');
    cache.invalidate(ACCOUNT, 'github');
    expect((await cache.get(ACCOUNT, 'github', loader('newer'))).value).toBe('newer');
    expect(loads).toEqual(['new', 'newer']);
  });

  test('never used past the token’s own expiry', async () => {
    const { cache, advance, at } = setUp({ ttlMs: 60_000 });
    let reads = 0;
    const expiring = async () => {
      reads += 1;
      return credential('a', new Date(at() + 1_000));
    };
    await cache.get(ACCOUNT, 'github', expiring);
    advance(999);
    await cache.get(ACCOUNT, 'github', expiring);
    expect(reads).toBe(1);
    advance(1);
    await cache.get(ACCOUNT, 'github', expiring);
    expect(reads).toBe(2);
  });

  test('bounded: past maxEntries the oldest entry goes', async () => {
    const { cache, loads, loader } = setUp({ maxEntries: 2 });
    await cache.get(ACCOUNT, 'a', loader('a'));
    await cache.get(ACCOUNT, 'b', loader('b'));
    await cache.get(ACCOUNT, 'c', loader('c'));
    expect(cache.size).toBe(2);
    await cache.get(ACCOUNT, 'b', loader('b2'));
    await cache.get(ACCOUNT, 'a', loader('a2'));
    expect(loads).toEqual(['a', 'b', 'c', 'a2']);
  });

  test('while changes cannot be heard, every call reads the database', async () => {
    const { cache, loads, loader } = setUp();
    await cache.get(ACCOUNT, 'github', loader('a'));
    cache.setLive(false);
    await cache.get(ACCOUNT, 'github', loader('b'));
    await cache.get(ACCOUNT, 'github', loader('c'));
    cache.setLive(true);
    await cache.get(ACCOUNT, 'github', loader('d'));
    await cache.get(ACCOUNT, 'github', loader('e'));
    expect(loads).toEqual(['a', 'b', 'c', 'd']);
  });

  test('a refusal is not kept', async () => {
    const { cache, loads, loader } = setUp();
    await expect(
      cache.get(ACCOUNT, 'github', async () => {
        throw new Error('not connected');
      }),
    ).rejects.toThrow('not connected');
    expect((await cache.get(ACCOUNT, 'github', loader('a'))).value).toBe('a');
    expect(loads).toEqual(['a']);
  });
});
