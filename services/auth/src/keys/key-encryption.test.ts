import { randomBytes } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { decryptJwk, encryptJwk } from './key-encryption.ts';
import { generateSigningJwk } from './signing-key.ts';

describe('signing key encryption', () => {
  const key = randomBytes(32);
  const jwk = generateSigningJwk();

  test('decrypts what it encrypted, and the ciphertext shows nothing of the key', () => {
    const sealed = encryptJwk(jwk, key, jwk.kid);
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(jwk.d);
    expect(decryptJwk(sealed, key, jwk.kid)).toEqual(jwk);
    expect(encryptJwk(jwk, key, jwk.kid)).not.toBe(sealed);
  });

  test('a wrong key, another kid or a changed ciphertext fails loudly', () => {
    const sealed = encryptJwk(jwk, key, jwk.kid);
    expect(() => decryptJwk(sealed, randomBytes(32), jwk.kid)).toThrow(/KEY_ENCRYPTION_KEY/);
    expect(() => decryptJwk(sealed, key, 'another-kid')).toThrow(/cannot be decrypted/);
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3] ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(() => decryptJwk(parts.join('.'), key, jwk.kid)).toThrow(/cannot be decrypted/);
  });

  test('the kid is the RFC 7638 thumbprint: the same key always gets the same kid', () => {
    const { kid, alg, use, d: _d, ...rest } = jwk;
    expect(generateSigningJwk().kid).not.toBe(kid);
    expect({ alg, use }).toEqual({ alg: 'ES256', use: 'sig' });
    expect(kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rest.kty).toBe('EC');
  });
});
