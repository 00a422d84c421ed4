import { describe, expect, test } from '@jest/globals';
import { DEFAULT_RETRY_AFTER_SECONDS, MAX_RETRY_AFTER_SECONDS, retryAfterSeconds } from './retry-after.ts';

const now = Date.parse('2026-11-24T18:00:00Z');

describe("a connected service's Retry-After", () => {
  test('seconds pass as given', () => {
    expect(retryAfterSeconds('0', now)).toBe(0);
    expect(retryAfterSeconds(' 17 ', now)).toBe(17);
  });

  test('an HTTP date becomes the seconds until then, rounded up; a date passed is 0', () => {
    expect(retryAfterSeconds('Tue, 24 Nov 2026 18:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 18:00:00 GMT', now + 200)).toBe(0);
    expect(retryAfterSeconds('Tuesday, 24-Nov-26 18:00:05 GMT', now)).toBe(5);
    expect(retryAfterSeconds('Tue, 24 Nov 2026 17:00:00 GMT', now)).toBe(0);
  });

  test('missing or unreadable: the default; far off: capped', () => {
    expect(retryAfterSeconds(undefined, now)).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    for (const value of ['', 'soon', '-5', '1.5', '2026-11-24T18:01:00Z'])
      expect(retryAfterSeconds(value, now)).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    expect(retryAfterSeconds('86400', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(retryAfterSeconds('Wed, 25 Nov 2026 18:00:00 GMT', now)).toBe(MAX_RETRY_AFTER_SECONDS);
  });
});
