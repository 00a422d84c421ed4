import { describe, expect, test } from '@jest/globals';
import { claimCodeHash, claimUrl, newClaimCode } from './claim-code.ts';
import { creationRefusal, DEFAULT_CREATION_LIMITS, PENDING_RETRY_SECONDS } from './creation-limits.ts';

const now = new Date('2026-11-23T12:00:00.000Z');
const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
const none = { fromClientToQueue: [], fromClientAgent: [], pendingFromClientAgent: [] };

describe('creationRefusal', () => {
  test('under every limit, nothing is refused', () => {
    expect(
      creationRefusal({ ...none, fromClientToQueue: Array(29).fill(minutesAgo(1)) }, 'a', now),
    ).toBeNull();
  });

  test('a full window frees a place when its oldest counted creation turns an hour old', () => {
    // Newest first; the 30th newest is 50 minutes old: a place frees in 10 minutes.
    const fromClientToQueue = Array.from({ length: 30 }, (_, i) => minutesAgo(i === 29 ? 50 : i + 1));
    const refusal = creationRefusal({ ...none, fromClientToQueue }, 'a', now);
    expect(refusal).toMatchObject({ code: 'RATE_LIMITED', status: 429, headers: { 'Retry-After': '600' } });
    expect(refusal?.message).toBe(
      'Too many handshakes from your address: at most 30 per hour for one owner. Retry in 600 s (at 2026-11-23T12:10:00.000Z).',
    );
  });

  test('pending ones count for a day; the per-agentId hourly limit comes after', () => {
    const pendingFromClientAgent = [minutesAgo(10), minutesAgo(20), minutesAgo(23 * 60)];
    const pending = creationRefusal({ ...none, pendingFromClientAgent }, 'bot', now);
    // A place frees when the owner decides, not only when the oldest stops counting in an hour.
    expect(pending?.headers).toEqual({ 'Retry-After': String(PENDING_RETRY_SECONDS) });
    expect(PENDING_RETRY_SECONDS).toBeLessThanOrEqual(60);
    expect(pending?.message).toContain('agentId "bot" already has 3 handshakes from your address waiting');
    expect(pending?.hint).toMatch(/as soon as the owner approves or denies one of your pending handshakes/);
    const lastMinute = creationRefusal(
      { ...none, pendingFromClientAgent: [minutesAgo(1), minutesAgo(2), minutesAgo(24 * 60 - 0.5)] },
      'bot',
      now,
    );
    expect(lastMinute?.headers).toEqual({ 'Retry-After': '30' });
    const hourly = creationRefusal({ ...none, fromClientAgent: Array(5).fill(minutesAgo(30)) }, 'bot', now);
    expect(hourly?.message).toContain('at most 5 per hour');
    expect(hourly?.headers).toEqual({ 'Retry-After': '1800' });
  });

  test('Retry-After is never below one second', () => {
    const fromClientToQueue = Array(DEFAULT_CREATION_LIMITS.perClientPerQueuePerHour).fill(minutesAgo(60));
    expect(creationRefusal({ ...none, fromClientToQueue }, 'a', now)?.headers).toEqual({
      'Retry-After': '1',
    });
  });
});

describe('claim codes', () => {
  test('are found by the code or the whole link; anything else looks up nothing', () => {
    const code = newClaimCode();
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const hash = claimCodeHash(code);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(claimCodeHash(` ${claimUrl('https://pag.example', code)} `)).toBe(hash);
    expect(claimCodeHash('https://pag.example/dashboard/handshakes/claim')).toBeNull();
    expect(claimCodeHash('short')).toBeNull();
  });
});
