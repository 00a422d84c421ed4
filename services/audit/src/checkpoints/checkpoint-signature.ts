/**
 * A checkpoint's signature: Ed25519 over JCS({hash, keyId, seq, signedAt}), base64url.
 * PROVISIONAL (verify branch): the audit branch owns this module; on merge its version replaces
 * this one and verify calls it.
 */
import { sign, verify } from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import type { SigningKey, VerifyKey } from './signing-keys.ts';

const canonicalize = canonicalizeModule as unknown as typeof canonicalizeModule.default;

export interface SignedCheckpoint {
  readonly seq: number;
  readonly hash: string;
  readonly signedAt: string;
  readonly keyId: string;
  readonly signature: string;
}

function payload(checkpoint: Omit<SignedCheckpoint, 'signature'>): Buffer {
  const { hash, keyId, seq, signedAt } = checkpoint;
  return Buffer.from(canonicalize({ hash, keyId, seq, signedAt }) as string, 'utf8');
}

export function signCheckpoint(
  key: SigningKey,
  head: { seq: number; hash: string; signedAt: string },
): SignedCheckpoint {
  const unsigned = { ...head, keyId: key.keyId };
  return { ...unsigned, signature: sign(null, payload(unsigned), key.privateKey).toString('base64url') };
}

export function checkpointSignatureValid(checkpoint: SignedCheckpoint, key: VerifyKey): boolean {
  return verify(null, payload(checkpoint), key.key, Buffer.from(checkpoint.signature, 'base64url'));
}
