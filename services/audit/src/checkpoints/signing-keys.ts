/**
 * The checkpoint keys (Ed25519, node:crypto). A signing key is given as base64url of its 32-byte
 * seed (AUDIT_SIGNING_KEY); a public key as base64url of its 32 raw bytes (AUDIT_VERIFY_KEYS: the
 * retired ones). A key is named by its id: the first 16 characters of base64url(SHA-256(raw
 * public key)). Verification takes public keys from the configuration only, never from the
 * database, where whoever could rewrite the log could also replace them.
 */
import type { KeyObject } from 'node:crypto';
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';

/** base64url of exactly 32 bytes, without padding. */
export function isBase64url32(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value) && Buffer.from(value, 'base64url').toString('base64url') === value;
}

// PKCS#8 and SPKI prefixes of an Ed25519 key (RFC 8410): what node:crypto needs around the raw 32 bytes.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface SigningKey {
  readonly keyId: string;
  readonly privateKey: KeyObject;
  readonly publicKey: VerifyKey;
}

export interface VerifyKey {
  readonly keyId: string;
  readonly key: KeyObject;
  /** base64url of the raw 32 bytes, as AUDIT_VERIFY_KEYS lists it. */
  readonly raw: string;
}

export function keyIdOf(rawPublicKey: Buffer): string {
  return createHash('sha256').update(rawPublicKey).digest('base64url').slice(0, 16);
}

function checked(value: string, what: string): Buffer {
  if (!isBase64url32(value)) throw new TypeError(`${what} must be base64url of 32 bytes`);
  return Buffer.from(value, 'base64url');
}

export function verifyKeyFromRaw(raw: string): VerifyKey {
  const bytes = checked(raw, 'an Ed25519 public key');
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, bytes]), format: 'der', type: 'spki' });
  return { keyId: keyIdOf(bytes), key, raw };
}

export function signingKeyFromSeed(seed: string): SigningKey {
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_PREFIX, checked(seed, 'an Ed25519 seed')]),
    format: 'der',
    type: 'pkcs8',
  });
  // The SPKI DER of an Ed25519 key ends with its 32 raw bytes.
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const publicKey = verifyKeyFromRaw(spki.subarray(SPKI_PREFIX.length).toString('base64url'));
  return { keyId: publicKey.keyId, privateKey, publicKey };
}

/**
 * The keys verify trusts, by id: the signing key's public half and every retired key. Two keys
 * with one id (a key listed twice) are one.
 */
export function verifyKeys(
  signingSeed: string | undefined,
  retired: readonly string[],
): Map<string, VerifyKey> {
  const keys = new Map<string, VerifyKey>();
  if (signingSeed !== undefined) {
    const { publicKey } = signingKeyFromSeed(signingSeed);
    keys.set(publicKey.keyId, publicKey);
  }
  for (const raw of retired) {
    const key = verifyKeyFromRaw(raw);
    keys.set(key.keyId, key);
  }
  return keys;
}
