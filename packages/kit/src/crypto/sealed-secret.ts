/**
 * A secret at rest (an owner's API key, a credential): AES-256-GCM under a 32-byte key, modelled
 * on the proxy's vault (services/proxy/src/vault/token-cipher.ts, which keeps its own format).
 *
 * What it enforces: a fresh random 96-bit IV per seal; `boundTo` (e.g. the account id, or the
 * row's identity) is authenticated data, so a sealed value copied into another account's row
 * fails to open instead of lending its secret; tampering or a wrong key fails loudly
 * (SealedSecretError), never yielding a different value. The error never carries the secret.
 * Format: `s1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { z } from 'zod';

const VERSION = 's1';

export class SealedSecretError extends Error {
  override name = 'SealedSecretError';
}

/** An environment variable holding such a key: the base64 of exactly 32 bytes. */
export const envSealingKey = z
  .string()
  .refine((value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value), 'must be base64')
  .transform((value) => Buffer.from(value, 'base64'))
  .refine((key) => key.length === 32, 'must be the base64 of exactly 32 bytes (openssl rand -base64 32)');

function additionalData(boundTo: string): Buffer {
  return Buffer.from(JSON.stringify([VERSION, boundTo]), 'utf8');
}

function assertKey(key: Buffer): void {
  if (key.length !== 32) throw new SealedSecretError('The sealing key must be 32 bytes (AES-256).');
}

export function sealSecret(value: string, key: Buffer, boundTo: string): string {
  assertKey(key);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData(boundTo));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return [VERSION, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join(
    '.',
  );
}

export function openSecret(sealed: string, key: Buffer, boundTo: string): string {
  assertKey(key);
  const [version, iv, tag, ciphertext, extra] = sealed.split('.');
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined || extra) {
    throw new SealedSecretError('unknown sealed-secret format');
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(additionalData(boundTo));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch (cause) {
    throw new SealedSecretError(
      'the sealed secret cannot be opened: another key, another owner, or altered',
      {
        cause,
      },
    );
  }
}
