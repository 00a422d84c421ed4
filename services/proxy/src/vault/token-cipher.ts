/**
 * Vault token values at rest: AES-256-GCM under VAULT_ENCRYPTION_KEY.
 *
 * What it enforces: a fresh random 96-bit IV per encryption; the row's identity (token id,
 * account, service) is authenticated data, so a ciphertext copied into another row, another
 * account or another service fails to decrypt instead of lending its credential; tampering or a
 * wrong key fails loudly (VaultKeyError), never yielding a different value.
 * Format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/** Which row a value belongs to; bound into the ciphertext. */
export interface TokenBinding {
  tokenId: string;
  accountId: string;
  service: string;
}

export class VaultKeyError extends Error {
  override name = 'VaultKeyError';
}

function additionalData({ tokenId, accountId, service }: TokenBinding): Buffer {
  return Buffer.from(JSON.stringify([VERSION, tokenId, accountId, service]), 'utf8');
}

function assertKey(key: Buffer): void {
  if (key.length !== 32) throw new VaultKeyError('The vault key must be 32 bytes (AES-256).');
}

export function encryptTokenValue(value: string, key: Buffer, binding: TokenBinding): string {
  assertKey(key);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData(binding));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'));
  return [VERSION, ...parts].join('.');
}

export function decryptTokenValue(sealed: string, key: Buffer, binding: TokenBinding): string {
  assertKey(key);
  const [version, iv, tag, ciphertext, extra] = sealed.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined || extra) {
    throw new VaultKeyError(`vault token ${binding.tokenId}: unknown encryption format`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(additionalData(binding));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    return plain.toString('utf8');
  } catch (cause) {
    throw new VaultKeyError(
      `vault token ${binding.tokenId} cannot be decrypted: is VAULT_ENCRYPTION_KEY the key it was stored with?`,
      { cause },
    );
  }
}
