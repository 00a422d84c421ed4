import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { sealV1 } from '../../test/support/legacy-v1.ts';
import { legacyKeyId, VaultKeyRing } from './key-ring.ts';
import type { TokenBinding } from './token-cipher.ts';
import { openToken, rewrapToken, sealToken, VaultKeyError } from './token-cipher.ts';

const binding: TokenBinding = { tokenId: randomUUID(), accountId: randomUUID(), service: 'github' };
const secret = 'ghp_exampleSecretValue0123456789';
const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const oldRing = new VaultKeyRing(new Map([['k1', oldKey]]), 'k1');
const bothRing = new VaultKeyRing(
  new Map([
    ['k2', newKey],
    ['k1', oldKey],
  ]),
  'k2',
);

describe('envelope encryption', () => {
  test('a fresh data key per value, wrapped under the active key and named by its id', () => {
    const sealed = sealToken(secret, bothRing, binding);
    expect(sealed.keyId).toBe('k2');
    expect(sealed.encryptedValue).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed.wrappedKey).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(JSON.stringify(sealed)).not.toContain(secret);
    expect(openToken(sealed, bothRing, binding)).toBe(secret);
    const again = sealToken(secret, bothRing, binding);
    expect(again.encryptedValue).not.toBe(sealed.encryptedValue);
    expect(again.wrappedKey).not.toBe(sealed.wrappedKey);
  });

  test('rotation rewraps the data key only: the ciphertext stays, the old key is no longer needed', () => {
    const sealed = sealToken(secret, oldRing, binding);
    const rotated = rewrapToken(sealed, bothRing, binding);
    expect(rotated.keyId).toBe('k2');
    expect(rotated.encryptedValue).toBe(sealed.encryptedValue);
    expect(rotated.wrappedKey).not.toBe(sealed.wrappedKey);
    const newOnly = new VaultKeyRing(new Map([['k2', newKey]]), 'k2');
    expect(openToken(rotated, newOnly, binding)).toBe(secret);
    expect(() => openToken(sealed, newOnly, binding)).toThrow(/vault key k1 is not in the key ring/);
  });

  test('a value of the v1 format is read, and re-sealed in the envelope format on rotation', () => {
    const legacy = { keyId: null, wrappedKey: null, encryptedValue: sealV1(secret, oldKey, binding) };
    expect(openToken(legacy, bothRing, binding)).toBe(secret);
    const rotated = rewrapToken(legacy, bothRing, binding);
    expect(rotated.keyId).toBe('k2');
    expect(rotated.encryptedValue).toMatch(/^v2\./);
    expect(openToken(rotated, new VaultKeyRing(new Map([['k2', newKey]]), 'k2'), binding)).toBe(secret);
    expect(() => openToken(legacy, VaultKeyRing.single(randomBytes(32)), binding)).toThrow(
      /stored before key ids\) cannot be decrypted/,
    );
  });

  test('a wrong key under the right id fails clearly', () => {
    const sealed = sealToken(secret, oldRing, binding);
    const impostor = new VaultKeyRing(new Map([['k1', randomBytes(32)]]), 'k1');
    const attempt = () => openToken(sealed, impostor, binding);
    expect(attempt).toThrow(VaultKeyError);
    expect(attempt).toThrow(/cannot be unwrapped with vault key k1/);
  });

  test('a value or a wrapped key moved to another row, account or service does not decrypt', () => {
    const sealed = sealToken(secret, bothRing, binding);
    const elsewhere = sealToken('another value', bothRing, { ...binding, tokenId: randomUUID() });
    for (const other of [
      { ...binding, tokenId: randomUUID() },
      { ...binding, accountId: randomUUID() },
      { ...binding, service: 'slack' },
    ]) {
      expect(() => openToken(sealed, bothRing, other)).toThrow(VaultKeyError);
    }
    // This row's ciphertext with another row's wrapped key, and the other way round.
    expect(() => openToken({ ...sealed, wrappedKey: elsewhere.wrappedKey }, bothRing, binding)).toThrow(
      VaultKeyError,
    );
    expect(() =>
      openToken({ ...elsewhere, encryptedValue: sealed.encryptedValue }, bothRing, binding),
    ).toThrow(VaultKeyError);
  });

  test('a changed ciphertext, a changed key id or an unknown format fails loudly', () => {
    const sealed = sealToken(secret, bothRing, binding);
    const parts = sealed.encryptedValue.split('.');
    const flipped = Buffer.from(parts[3] ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(() => openToken({ ...sealed, encryptedValue: parts.join('.') }, bothRing, binding)).toThrow(
      /its value was changed/,
    );
    expect(() => openToken({ ...sealed, keyId: 'k1' }, bothRing, binding)).toThrow(/cannot be unwrapped/);
    expect(() =>
      openToken({ ...sealed, encryptedValue: `v3.${parts.slice(1).join('.')}` }, bothRing, binding),
    ).toThrow(/unknown encryption format/);
  });
});

describe('the key ring', () => {
  test('keys of the wrong length, bad ids and an active id outside the ring are refused', () => {
    expect(() => new VaultKeyRing(new Map([['k1', randomBytes(16)]]), 'k1')).toThrow(/32 bytes/);
    expect(() => new VaultKeyRing(new Map([['k 1', randomBytes(32)]]), 'k 1')).toThrow(/short name/);
    expect(() => new VaultKeyRing(new Map([['k1', randomBytes(32)]]), 'k2')).toThrow(/not in the key ring/);
  });

  test('a key moved from VAULT_ENCRYPTION_KEY into VAULT_KEYS under a name still reads what it wrapped', () => {
    const sealed = sealToken(secret, VaultKeyRing.single(oldKey), binding);
    expect(sealed.keyId).toBe(legacyKeyId(oldKey));
    const named = new VaultKeyRing(
      new Map([
        ['k2', newKey],
        ['k1', oldKey],
      ]),
      'k2',
    );
    expect(openToken(sealed, named, binding)).toBe(secret);
    expect(named.idOf(legacyKeyId(oldKey))).toBe('k1');
    expect(named.idOf(legacyKeyId(randomBytes(32)))).toBeUndefined();
  });

  test('a single key goes by an id derived from it: stable, and different for another key', () => {
    expect(VaultKeyRing.single(oldKey).activeId).toBe(legacyKeyId(oldKey));
    expect(legacyKeyId(oldKey)).toBe(legacyKeyId(Buffer.from(oldKey)));
    expect(legacyKeyId(oldKey)).not.toBe(legacyKeyId(newKey));
    expect(legacyKeyId(oldKey)).not.toContain(oldKey.toString('base64url').slice(0, 6));
  });
});
