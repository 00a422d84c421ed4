import { describe, expect, test } from '@jest/globals';
import { identityFromAccount } from './seed-identity.ts';

describe('identity of a fresh account', () => {
  test("the name is the email's local part; nothing else is guessed", () => {
    expect(identityFromAccount({ email: 'alice.smith@example.com' })).toEqual({
      name: 'alice.smith',
      email: 'alice.smith@example.com',
      timezone: null,
      locale: null,
      summary: null,
    });
  });

  test('a quoted local part with an @ keeps everything before the last @', () => {
    expect(identityFromAccount({ email: '"a@b"@example.com' }).name).toBe('"a@b"');
  });
});
