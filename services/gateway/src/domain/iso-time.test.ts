import { expect, test } from '@jest/globals';
import { isoTime } from './iso-time.ts';

test('writes every millisecond as toISOString does, across seconds, days and years', () => {
  const starts = [
    Date.UTC(2026, 10, 25, 0, 40, 59, 990),
    Date.UTC(2026, 11, 31, 23, 59, 59, 995),
    Date.UTC(2028, 1, 29, 12, 0, 0, 0),
  ];
  for (const start of starts) {
    for (let ms = start; ms < start + 30; ms += 1) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  }
  // Out of order (a request stamped before the one written last) and back again.
  for (const ms of [starts[1] ?? 0, starts[0] ?? 0, (starts[1] ?? 0) + 7, 0, 999, 1_000])
    expect(isoTime(ms)).toBe(new Date(ms).toISOString());
});
