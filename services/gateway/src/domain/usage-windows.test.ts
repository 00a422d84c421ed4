import { describe, expect, test } from '@jest/globals';
import { brokenLimits, describeBrokenLimits, retryAfterSeconds, usageWindows } from './usage-windows.ts';

describe('usage windows', () => {
  test('are the UTC calendar day and month, whatever the local time zone', () => {
    const windows = usageWindows(new Date('2026-12-31T23:59:59.500Z'));
    expect(windows.day).toEqual({ start: '2026-12-31', endsAt: new Date('2027-01-01T00:00:00Z') });
    expect(windows.month).toEqual({ start: '2026-12-01', endsAt: new Date('2027-01-01T00:00:00Z') });
  });

  test('a leap day ends at the first of March', () => {
    const windows = usageWindows(new Date('2028-02-29T12:00:00Z'));
    expect(windows.day.endsAt).toEqual(new Date('2028-03-01T00:00:00Z'));
    expect(windows.month).toEqual({ start: '2028-02-01', endsAt: new Date('2028-03-01T00:00:00Z') });
  });

  test('are made once per UTC day and shared by its requests; the next instant of a new day has its own', () => {
    const morning = usageWindows(new Date('2026-11-30T00:00:00.000Z'));
    expect(usageWindows(new Date('2026-11-30T23:59:59.999Z'))).toBe(morning);
    expect(Object.isFrozen(morning) && Object.isFrozen(morning.day) && Object.isFrozen(morning.month)).toBe(
      true,
    );
    const next = usageWindows(new Date('2026-12-01T00:00:00.000Z'));
    expect(next.day).toEqual({ start: '2026-12-01', endsAt: new Date('2026-12-02T00:00:00Z') });
    expect(next.month).toEqual({ start: '2026-12-01', endsAt: new Date('2027-01-01T00:00:00Z') });
    // A clock set back (or a request timed before another) is never given a later day's windows.
    expect(usageWindows(new Date('2026-11-30T23:59:59.999Z')).day.start).toBe('2026-11-30');
  });
});

describe('limits', () => {
  const now = new Date('2026-11-23T22:00:00Z');
  const windows = usageWindows(now);

  test('the count includes the request: the limit-th request passes, the next does not', () => {
    expect(brokenLimits({ daily: 3, monthly: null }, { day: 3, month: 3 }, windows)).toEqual([]);
    expect(brokenLimits({ daily: 3, monthly: null }, { day: 4, month: 4 }, windows)).toEqual([
      { period: 'daily', limit: 3, resetsAt: windows.day.endsAt },
    ]);
  });

  test('no limit is never broken; a limit of 0 refuses every request', () => {
    expect(brokenLimits({ daily: null, monthly: null }, { day: 10 ** 9, month: 10 ** 9 }, windows)).toEqual(
      [],
    );
    expect(brokenLimits({ daily: null, monthly: 0 }, { day: 1, month: 1 }, windows)).toHaveLength(1);
  });

  test('Retry-After waits for the latest reset among the broken limits', () => {
    const broken = brokenLimits({ daily: 1, monthly: 1 }, { day: 2, month: 2 }, windows);
    expect(retryAfterSeconds(broken.slice(0, 1), now)).toBe(2 * 3600);
    expect(retryAfterSeconds(broken, now)).toBe((7 * 24 + 2) * 3600);
    expect(describeBrokenLimits(broken)).toBe(
      'This agent has reached its daily limit of 1 request (resets at 2026-11-24T00:00:00.000Z) and its monthly limit of 1 request (resets at 2026-12-01T00:00:00.000Z).',
    );
  });
});
