import { describe, expect, test } from '@jest/globals';
import { isoUtc } from './utc-text.ts';

describe('isoUtc', () => {
  test.each([
    '2026-11-24T08:52:59',
    '2026-11-24T08:52:59.2',
    '2026-11-24 08:52:59.25',
    '2026-11-24 08:52:59.208',
    '1999-12-31T23:59:59.999',
  ])('%s is written as toISOString writes the same instant', (utc) => {
    expect(isoUtc(utc)).toBe(new Date(`${utc.replace(' ', 'T')}Z`).toISOString());
  });
});
