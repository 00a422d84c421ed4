/**
 * Bounded caches whose entries end at a given time (epoch ms): lru-cache, set up so that an entry
 * is never returned at or after its end, on whatever clock the caller passes (tests move it).
 *
 * Two settings of lru-cache would not do that by default (read in its dist/esm/node/index.js):
 * - staleness is `now - start > ttl`, so an entry stored with `ttl = end - now` is still returned
 *   at `end`; `setUntil` starts it 1 ms early, which makes it stale exactly at `end` on an
 *   integer clock (Date.now) and at most 1 ms early on any other;
 * - `ttlResolution` (default 1 ms) keeps the last clock reading and arms a timer to forget it: a
 *   clock moved meanwhile is read stale, and a timer per reading costs more than `Date.now()`.
 *   With 0 the clock is read at each check, as the hand-written cache this replaces did.
 */
import { LRUCache } from 'lru-cache';

/** At most `maxEntries` entries (the least recently used leave first), timed by `now`. */
export function expiryCache<V extends {}>(maxEntries: number, now: () => number): LRUCache<string, V> {
  return new LRUCache<string, V>({ max: maxEntries, ttlResolution: 0, perf: { now } });
}

/** Stores `value` until `expiresAt` (epoch ms); a time already past stores nothing and forgets the key. */
export function setUntil<V extends {}>(
  cache: LRUCache<string, V>,
  key: string,
  value: V,
  expiresAt: number,
): void {
  const now = cache.perf.now();
  if (expiresAt <= now) {
    cache.delete(key);
    return;
  }
  // Stale once `reading - (now - 1) > expiresAt - now`, i.e. `reading > expiresAt - 1`: from
  // `expiresAt` on. The ttl stays positive: lru-cache reads a ttl (or a start) of 0 as "never stale",
  // so the clock must be epoch-like, as Date.now and the tests' clocks are.
  cache.set(key, value, { ttl: expiresAt - now, start: now - 1 });
}
