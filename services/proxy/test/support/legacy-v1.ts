/**
 * A value sealed the way the vault stored it before envelope encryption (`v1`: AES-256-GCM
 * directly under VAULT_ENCRYPTION_KEY, no key id, no wrapped key), for tests that check such rows
 * are still read and are moved into the envelope format by rotation.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import type { TokenBinding } from '../../src/vault/token-cipher.ts';

export function sealV1(value: string, key: Buffer, { tokenId, accountId, service }: TokenBinding): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(JSON.stringify(['v1', tokenId, accountId, service]), 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
}
