import { describe, expect, test } from '@jest/globals';
import { findDuplicateKey } from './duplicate-keys.ts';

describe('findDuplicateKey', () => {
  test.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"x":{"b":[1,{"c":1,"c":2}]}}', 'c'],
    ['[{"a":1},{"b":{"d":"}","d":3}}]', 'd'],
    ['{"k\\"":1, "k\\"" : 2}', 'k"'],
  ])('%s repeats %s', (json, key) => {
    expect(findDuplicateKey(json)).toBe(key);
  });

  test.each([
    '{"a":1,"b":{"a":2}}',
    '[{"a":1},{"a":2}]',
    '{"a":"a","b":["a","a"]}',
    '{"a":"{\\"a\\":1,\\"a\\":2}"}',
    '{}',
    '[]',
  ])('%s has none', (json) => {
    expect(findDuplicateKey(json)).toBeNull();
  });
});
