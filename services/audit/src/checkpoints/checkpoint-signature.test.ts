import { describe, expect, test } from '@jest/globals';
import { signCheckpoint, verifyCheckpoint } from './checkpoint-signature.ts';
import { keyIdOf, signingKeyFromSeed, verifyKeyFromRaw, verifyKeys } from './signing-keys.ts';

// RFC 8032, section 7.1, TEST 1: the secret key (seed) and its public key.
const RFC_SEED = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const RFC_PUBLIC = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex');
const SEED = RFC_SEED.toString('base64url');
const HEAD = { seq: 42, hash: 'ab'.repeat(32) };
const AT = new Date('2026-11-24T06:00:00.123Z');

describe('checkpoint keys', () => {
  test('a seed gives the Ed25519 public key of RFC 8032, named by 16 characters of its SHA-256', () => {
    const key = signingKeyFromSeed(SEED);
    expect(key.publicKey.raw).toBe(RFC_PUBLIC.toString('base64url'));
    expect(key.keyId).toBe(keyIdOf(RFC_PUBLIC));
    expect(key.keyId).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });

  test('trusted keys: the signing key and the retired ones, by id', () => {
    const retired = signingKeyFromSeed(Buffer.alloc(32, 1).toString('base64url')).publicKey.raw;
    const keys = verifyKeys(SEED, [retired, retired]);
    expect([...keys.keys()].sort()).toEqual(
      [signingKeyFromSeed(SEED).keyId, verifyKeyFromRaw(retired).keyId].sort(),
    );
  });

  test('a key that is not base64url of 32 bytes is refused', () => {
    expect(() => signingKeyFromSeed('abc')).toThrow(/32 bytes/);
    expect(() => verifyKeyFromRaw(`${RFC_PUBLIC.toString('base64url')}=`)).toThrow(/32 bytes/);
  });
});

describe('checkpoint signatures', () => {
  const key = signingKeyFromSeed(SEED);
  const trusted = verifyKeys(SEED, []);
  const checkpoint = signCheckpoint(key, HEAD, AT);

  test('signs seq, hash, time and key id; a trusted key verifies it', () => {
    expect(checkpoint).toMatchObject({ ...HEAD, signedAt: '2026-11-24T06:00:00.123Z', keyId: key.keyId });
    expect(Buffer.from(checkpoint.signature, 'base64url')).toHaveLength(64);
    expect(verifyCheckpoint(checkpoint, trusted)).toBe('valid');
  });

  test.each([
    ['seq', { seq: 41 }],
    ['hash', { hash: 'cd'.repeat(32) }],
    ['time', { signedAt: '2026-11-24T06:00:00.124Z' }],
    ['signature', { signature: signCheckpoint(key, { ...HEAD, seq: 43 }, AT).signature }],
  ])('a changed %s does not verify', (_, change) => {
    expect(verifyCheckpoint({ ...checkpoint, ...change }, trusted)).toBe('bad signature');
  });

  test('a key verify was not given is not trusted, even one named like a trusted one', () => {
    const other = signingKeyFromSeed(Buffer.alloc(32, 2).toString('base64url'));
    expect(verifyCheckpoint(signCheckpoint(other, HEAD, AT), trusted)).toBe('unknown key');
    expect(verifyCheckpoint({ ...signCheckpoint(other, HEAD, AT), keyId: key.keyId }, trusted)).toBe(
      'bad signature',
    );
  });
});
