/**
 * Vault token values at rest: envelope encryption (docs/adr/0066-envelope-encrypted-vault.md).
 *
 * Each value gets a fresh random 32-byte data key; the value is sealed with it (AES-256-GCM,
 * `v2.<iv>.<tag>.<ciphertext>` in `encrypted_value`) and the data key is wrapped by a
 * key-encryption key of the ring (AES-256-GCM, `<iv>.<tag>.<wrapped key>` in `wrapped_key`),
 * whose id is stored beside it (`key_id`). Rotating the KEK rewraps the 32-byte data key only:
 * the value itself is never decrypted for it.
 *
 * What it enforces: a fresh 96-bit IV per encryption; the row's identity (token id, account,
 * service) is authenticated data of both the value and the wrapped key (the wrapped key's also
 * names its KEK id), so a value or a wrapped key copied into another row, account or service
 * fails to decrypt instead of lending its credential; tampering or a wrong key fails loudly
 * (VaultKeyError), never yielding a different value.
 *
 * Values stored before envelope encryption (`v1.<iv>.<tag>.<ciphertext>` directly under
 * VAULT_ENCRYPTION_KEY, no key id) are still read (with each key of the ring, the active first)
 * and are re-sealed under a fresh data key when the key is rotated: the one case where rotation
 * decrypts a value, once.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { VaultKeyRing } from './key-ring.ts';
import { VaultKeyError } from './key-ring.ts';

export { VaultKeyError } from './key-ring.ts';

/** Which row a value belongs to; bound into the ciphertext and the wrapped key. */
export interface TokenBinding {
  tokenId: string;
  accountId: string;
  service: string;
}

/** A value as stored: key_id and wrapped_key are null for a value of the v1 format. */
export interface SealedToken {
  keyId: string | null;
  wrappedKey: string | null;
  encryptedValue: string;
}

/** What sealToken and rewrapToken write: always the envelope format. */
export interface EnvelopeToken extends SealedToken {
  keyId: string;
  wrappedKey: string;
}

function valueData({ tokenId, accountId, service }: TokenBinding, version: 'v1' | 'v2'): Buffer {
  return Buffer.from(JSON.stringify([version, tokenId, accountId, service]), 'utf8');
}

function wrapData(keyId: string, { tokenId, accountId, service }: TokenBinding): Buffer {
  return Buffer.from(JSON.stringify(['v2-data-key', keyId, tokenId, accountId, service]), 'utf8');
}

function seal(plain: Buffer, key: Buffer, aad: Buffer): string[] {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
  return [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'));
}

/** Throws whatever GCM throws (a wrong key or changed data); callers word the error. */
function open(parts: string[], key: Buffer, aad: Buffer): Buffer {
  const [iv, tag, ciphertext] = parts;
  if (parts.length !== 3 || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new Error('not three parts');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(aad);
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
}

function wrapDataKey(
  dataKey: Buffer,
  ring: VaultKeyRing,
  binding: TokenBinding,
): EnvelopeToken['wrappedKey'] {
  return seal(dataKey, ring.active, wrapData(ring.activeId, binding)).join('.');
}

function unwrapDataKey(keyId: string, wrappedKey: string, ring: VaultKeyRing, binding: TokenBinding): Buffer {
  const kek = ring.key(keyId);
  try {
    return open(wrappedKey.split('.'), kek, wrapData(keyId, binding));
  } catch (cause) {
    throw new VaultKeyError(
      `vault token ${binding.tokenId}: its data key cannot be unwrapped with vault key ${keyId}: is it the key it was stored with?`,
      { cause },
    );
  }
}

/** Seals a value under a fresh data key wrapped by the ring's active key. */
export function sealToken(value: string, ring: VaultKeyRing, binding: TokenBinding): EnvelopeToken {
  const dataKey = randomBytes(32);
  const encryptedValue = ['v2', ...seal(Buffer.from(value, 'utf8'), dataKey, valueData(binding, 'v2'))].join(
    '.',
  );
  return { keyId: ring.activeId, wrappedKey: wrapDataKey(dataKey, ring, binding), encryptedValue };
}

export function openToken(sealed: SealedToken, ring: VaultKeyRing, binding: TokenBinding): string {
  const [version, ...parts] = sealed.encryptedValue.split('.');
  if (version === 'v2' && sealed.keyId !== null && sealed.wrappedKey !== null) {
    const dataKey = unwrapDataKey(sealed.keyId, sealed.wrappedKey, ring, binding);
    try {
      return open(parts, dataKey, valueData(binding, 'v2')).toString('utf8');
    } catch (cause) {
      throw new VaultKeyError(`vault token ${binding.tokenId} cannot be decrypted: its value was changed`, {
        cause,
      });
    }
  }
  if (version === 'v1' && sealed.keyId === null) return openLegacy(parts, ring, binding);
  throw new VaultKeyError(`vault token ${binding.tokenId}: unknown encryption format`);
}

/** A v1 value: sealed directly under the single key of before, which the ring must still hold. */
function openLegacy(parts: string[], ring: VaultKeyRing, binding: TokenBinding): string {
  let failure: unknown;
  for (const key of ring.all()) {
    try {
      return open(parts, key, valueData(binding, 'v1')).toString('utf8');
    } catch (error) {
      failure = error;
    }
  }
  throw new VaultKeyError(
    `vault token ${binding.tokenId} (stored before key ids) cannot be decrypted: is the VAULT_ENCRYPTION_KEY it was stored with in the key ring?`,
    { cause: failure },
  );
}

/**
 * The same value under the ring's active key. An envelope value keeps its ciphertext: only its
 * data key is unwrapped and wrapped again. A v1 value is decrypted once and sealed afresh.
 */
export function rewrapToken(sealed: SealedToken, ring: VaultKeyRing, binding: TokenBinding): EnvelopeToken {
  if (sealed.keyId !== null && sealed.wrappedKey !== null && sealed.encryptedValue.startsWith('v2.')) {
    const dataKey = unwrapDataKey(sealed.keyId, sealed.wrappedKey, ring, binding);
    try {
      return {
        keyId: ring.activeId,
        wrappedKey: wrapDataKey(dataKey, ring, binding),
        encryptedValue: sealed.encryptedValue,
      };
    } finally {
      dataKey.fill(0);
    }
  }
  return sealToken(openToken(sealed, ring, binding), ring, binding);
}
