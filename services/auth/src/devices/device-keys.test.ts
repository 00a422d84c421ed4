import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { AppError, DeviceRegistered } from '@pag/contracts';
import {
  groupedFingerprint,
  keyFingerprint,
  newUserCode,
  normalizeUserCode,
  rawPublicKey,
  USER_CODE_ALPHABET,
} from './device-keys.ts';

// RFC 8032 §7.1, test 1: a known Ed25519 public key.
const RFC8032_PUBLIC = Buffer.from(
  'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
  'hex',
).toString('base64url');

describe('device keys', () => {
  test('a raw key and its JWK are the same stored key', () => {
    expect(rawPublicKey(RFC8032_PUBLIC)).toBe(RFC8032_PUBLIC);
    expect(rawPublicKey({ kty: 'OKP', crv: 'Ed25519', x: RFC8032_PUBLIC })).toBe(RFC8032_PUBLIC);
  });

  test('the fingerprint is SHA-256 of the raw 32 bytes, base64url, grouped by four for reading', () => {
    const expected = createHash('sha256')
      .update(Buffer.from(RFC8032_PUBLIC, 'base64url'))
      .digest('base64url');
    expect(keyFingerprint(RFC8032_PUBLIC)).toBe(expected);
    expect(groupedFingerprint('abcdefghij')).toBe('abcd efgh ij');
  });

  test.each(['short', `${RFC8032_PUBLIC}AAAA`, `${RFC8032_PUBLIC.slice(0, 42)}=`])('%s is refused', (key) => {
    expect(() => rawPublicKey(key)).toThrow(AppError);
  });
});

describe('user codes', () => {
  test('are XXXX-XXXX from an alphabet without vowels or look-alikes, as the contract says', () => {
    for (let i = 0; i < 200; i += 1) {
      const code = newUserCode();
      expect(DeviceRegistered.shape.userCode.safeParse(code).success).toBe(true);
      expect([...code.replace('-', '')].every((c) => USER_CODE_ALPHABET.includes(c))).toBe(true);
    }
    expect(USER_CODE_ALPHABET).not.toMatch(/[AEIOU01L5S]/);
  });

  test.each([
    ['BCDF-GHJK', 'BCDF-GHJK'],
    ['bcdf-ghjk', 'BCDF-GHJK'],
    ['bcdfghjk', 'BCDF-GHJK'],
    [' BCDF GHJK ', 'BCDF-GHJK'],
    ['BCDF-GHJ', null],
    ['BCDF-GHJA', null],
    ['', null],
  ])('%j reads as %j', (typed, stored) => {
    expect(normalizeUserCode(typed)).toBe(stored);
  });
});
