import { describe, expect, test } from '@jest/globals';
import { jsonTextPrefix } from './json-text.ts';

const encoded = (text: string) => Buffer.byteLength(JSON.stringify(text));

describe('jsonTextPrefix', () => {
  test('keeps a text that fits, whole', () => {
    expect(jsonTextPrefix('hello', 7)).toBe('hello');
  });

  test.each([
    ['ascii', 'abcdefghij'.repeat(50)],
    ['escapes', '"\\\n\t'.repeat(50)],
    ['control characters', '\u0000\u0001\u001f'.repeat(50)],
    ['multi-byte', 'äöü€'.repeat(50)],
    ['emoji', '😀x'.repeat(50)],
    ['lone surrogates', '\ud800a\udc00'.repeat(50)],
  ])('cuts %s so that the JSON literal fits exactly as JSON.stringify writes it', (_name, text) => {
    for (const max of [2, 3, 7, 50, 101, 333]) {
      const cut = jsonTextPrefix(text, max);
      expect(text.startsWith(cut)).toBe(true);
      expect(encoded(cut)).toBeLessThanOrEqual(max);
      // One more character would not fit.
      const next = text.slice(0, cut.length + (/[\ud800-\udbff]/.test(text[cut.length] ?? '') ? 2 : 1));
      if (next.length > cut.length) expect(encoded(next)).toBeGreaterThan(max);
    }
  });

  test('never splits a surrogate pair', () => {
    expect(jsonTextPrefix('😀😀', 7)).toBe('😀');
  });
});
