/**
 * Signing keys at rest: the private JWK is encrypted with AES-256-GCM under KEY_ENCRYPTION_KEY.
 *
 * What it enforces: a fresh random 96-bit IV per encryption; the kid is authenticated data, so a
 * ciphertext moved to another row (another kid) fails to decrypt; any tampering, or a wrong key,
 * fails loudly rather than yielding a different key. Format: `v1.<iv>.<tag>.<ciphertext>`, base64url.
 */

import type { JsonWebKey } from 'node:crypto';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export function encryptJwk(jwk: JsonWebKey, key: Buffer, kid: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(kid, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'));
  return [VERSION, ...parts].join('.');
}

export function decryptJwk(text: string, key: Buffer, kid: string): JsonWebKey {
  const [version, iv, tag, ciphertext] = text.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) {
    throw new Error(`signing key ${kid}: unknown encryption format`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(kid, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  try {
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as JsonWebKey;
  } catch (cause) {
    throw new Error(
      `signing key ${kid} cannot be decrypted: is KEY_ENCRYPTION_KEY the one it was stored with?`,
      {
        cause,
      },
    );
  }
}
