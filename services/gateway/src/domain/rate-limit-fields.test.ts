import { describe, expect, test } from '@jest/globals';
import { rateLimitFields } from './rate-limit-fields.ts';
import { usageWindows } from './usage-windows.ts';

const now = new Date('2026-02-10T23:00:00.000Z');
const windows = usageWindows(now);

describe('RateLimit header fields', () => {
  test('one policy per limited window: its quota, its calendar length, what is left and when it resets', () => {
    expect(rateLimitFields({ daily: 50, monthly: 1000 }, windows, { day: 7, month: 957 }, now)).toEqual({
      'ratelimit-policy': '"daily";q=50;w=86400, "monthly";q=1000;w=2419200',
      ratelimit: `"daily";r=7;t=3600, "monthly";r=957;t=${18 * 86400 + 3600}`,
    });
  });

  test('a window without a limit is left out; no limit at all, no fields', () => {
    expect(rateLimitFields({ daily: null, monthly: 3 }, windows, { day: Infinity, month: 0 }, now)).toEqual({
      'ratelimit-policy': '"monthly";q=3;w=2419200',
      ratelimit: `"monthly";r=0;t=${18 * 86400 + 3600}`,
    });
    expect(
      rateLimitFields({ daily: null, monthly: null }, windows, { day: 1, month: 1 }, now),
    ).toBeUndefined();
  });

  test('t follows Retry-After when the gateway asks for a retry sooner', () => {
    const fields = rateLimitFields({ daily: 5, monthly: null }, windows, { day: 0, month: Infinity }, now, {
      daily: 2,
    });
    expect(fields?.ratelimit).toBe('"daily";r=0;t=2');
  });
});
