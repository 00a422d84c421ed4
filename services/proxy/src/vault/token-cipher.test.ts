import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import type { TokenBinding } from './token-cipher.ts';
import { decryptTokenValue, encryptTokenValue, VaultKeyError } from './token-cipher.ts';

describe('vault token encryption', () => {
  const key = randomBytes(32);
  const binding: TokenBinding = { tokenId: randomUUID(), accountId: randomUUID(), service: 'github' };
  const secret = 'ghp_exampleSecretValue0123456789';

  test('decrypts what it encrypted; the ciphertext shows nothing of the value and never repeats', () => {
    const sealed = encryptTokenValue(secret, key, binding);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(Buffer.from(secret).toString('base64url').slice(0, 12));
    expect(decryptTokenValue(sealed, key, binding)).toBe(secret);
    expect(encryptTokenValue(secret, key, binding)).not.toBe(sealed);
  });

  test('a wrong key fails clearly, naming the setting to check', () => {
    const sealed = encryptTokenValue(secret, key, binding);
    const attempt = () => decryptTokenValue(sealed, randomBytes(32), binding);
    expect(attempt).toThrow(VaultKeyError);
    expect(attempt).toThrow(/cannot be decrypted: is VAULT_ENCRYPTION_KEY the key it was stored with\?/);
  });

  test('a value moved to another row, account or service does not decrypt', () => {
    const sealed = encryptTokenValue(secret, key, binding);
    for (const other of [
      { ...binding, tokenId: randomUUID() },
      { ...binding, accountId: randomUUID() },
      { ...binding, service: 'slack' },
    ]) {
      expect(() => decryptTokenValue(sealed, key, other)).toThrow(/cannot be decrypted/);
    }
  });

  test('a changed ciphertext or an unknown format fails loudly', () => {
    const parts = encryptTokenValue(secret, key, binding).split('.');
    const flipped = Buffer.from(parts[3] ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(() => decryptTokenValue(parts.join('.'), key, binding)).toThrow(/cannot be decrypted/);
    expect(() => decryptTokenValue(`v2.${parts.slice(1).join('.')}`, key, binding)).toThrow(
      /unknown encryption format/,
    );
  });

  test('a key of the wrong length is refused before any use', () => {
    expect(() => encryptTokenValue(secret, randomBytes(16), binding)).toThrow(/32 bytes/);
  });
});
