import { describe, expect, test } from '@jest/globals';
import { findUnstorableText, isStorableText, unstorableReason } from './storable-text.ts';

describe('storable text', () => {
  test('NUL and unpaired surrogates cannot be stored; everything else can', () => {
    expect(unstorableReason('a\u0000b')).toBe('contains a NUL character (U+0000)');
    expect(unstorableReason('a\ud800b')).toBe('contains an unpaired UTF-16 surrogate (not valid Unicode)');
    expect(unstorableReason('\udc00')).not.toBeNull();
    for (const fine of ['', 'plain', 'tab\tnewline\n', '\ufffd', 'emoji 😀', '\\u0000 as six characters']) {
      expect(isStorableText(fine)).toBe(true);
    }
  });

  test('finds the first bad string at any depth, in keys too, and says where', () => {
    expect(findUnstorableText({ a: 1, b: [null, 'ok', { c: 'x\u0000' }] })).toEqual({
      path: 'b.2.c',
      reason: 'contains a NUL character (U+0000)',
    });
    expect(findUnstorableText({ 'k\ud800': 'v' })?.path).toBe('k\ud800');
    expect(findUnstorableText('\u0000')).toEqual({ path: '', reason: 'contains a NUL character (U+0000)' });
    expect(findUnstorableText({ a: 'fine', when: new Date(), bytes: Buffer.from([0, 0xd8]) })).toBeNull();
  });
});
