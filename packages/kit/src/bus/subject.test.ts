import { describe, expect, test } from '@jest/globals';
import { assertLiteralSubject, assertSubjectPattern, subjectMatches, subjectsOverlap } from './subject.ts';

describe('subject matching as NATS does it', () => {
  test.each([
    ['a.b.c', 'a.b.c', true],
    ['a.b.c', 'a.b', false],
    ['a.*.c', 'a.b.c', true],
    ['a.*', 'a.b.c', false],
    ['a.>', 'a.b.c', true],
    ['a.>', 'a', false],
    ['>', 'a', true],
    ['*.*', 'a.b', true],
    ['*', 'a.b', false],
    ['a.*.>', 'a.b', false],
    ['a.*.>', 'a.b.c.d', true],
  ])('%s matches %s: %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });

  test.each([
    ['a.*', '*.b', true],
    ['a.>', 'a.b.c', true],
    ['a.b', 'a.c', false],
    ['a.*', 'a.b.c', false],
    ['>', 'x.y', true],
    ['a.b.>', 'a.*', false],
  ])('%s overlaps %s: %s', (a, b, expected) => {
    expect(subjectsOverlap(a, b)).toBe(expected);
    expect(subjectsOverlap(b, a)).toBe(expected);
  });

  test('publishing needs a literal subject; subscribing allows wildcards with > last', () => {
    expect(() => assertLiteralSubject('a.*')).toThrow(/wildcards/);
    expect(() => assertLiteralSubject('a..b')).toThrow(/invalid subject/);
    expect(() => assertLiteralSubject('a b')).toThrow(/invalid subject/);
    expect(() => assertLiteralSubject('')).toThrow(/invalid subject/);
    expect(() => assertSubjectPattern('a.>.b')).toThrow(/last token/);
    expect(() => assertSubjectPattern('a.*.>')).not.toThrow();
  });
});
