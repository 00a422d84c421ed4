/**
 * A checkpoint is a signed statement "the log's row `seq` has hash `hash`", so that cutting rows
 * off the tail (or rewriting the whole chain) is detectable: Ed25519 over
 * JCS({hash, keyId, seq, signedAt}), signature in base64url. signedAt is an ISO 8601 time to the
 * millisecond in UTC, as TIMESTAMPTZ(3) gives it back. Verify trusts the keys it is given (from
 * the configuration), never keys found beside the checkpoints.
 */
import { sign, verify } from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import type { SigningKey, VerifyKey } from './signing-keys.ts';

// CommonJS with a default-export typing: see chain/chain-hash.ts.
const canonicalize = canonicalizeModule as unknown as typeof canonicalizeModule.default;

export interface Checkpoint {
  readonly seq: number;
  readonly hash: string;
  /** ISO 8601, milliseconds, UTC. */
  readonly signedAt: string;
  readonly keyId: string;
  /** base64url Ed25519 signature of the statement. */
  readonly signature: string;
}

/** The bytes a checkpoint's signature covers. */
export function checkpointStatement(checkpoint: Omit<Checkpoint, 'signature'>): Buffer {
  const { hash, keyId, seq, signedAt } = checkpoint;
  return Buffer.from(canonicalize({ hash, keyId, seq, signedAt }) as string, 'utf8');
}

export function signCheckpoint(
  key: SigningKey,
  head: { seq: number; hash: string },
  signedAt: Date,
): Checkpoint {
  const statement = { seq: head.seq, hash: head.hash, signedAt: signedAt.toISOString(), keyId: key.keyId };
  const signature = sign(null, checkpointStatement(statement), key.privateKey).toString('base64url');
  return { ...statement, signature };
}

export type CheckpointVerdict = 'valid' | 'unknown key' | 'bad signature';

/** Whether one of the trusted keys (by id) signed exactly this checkpoint. */
export function verifyCheckpoint(
  checkpoint: Checkpoint,
  keys: ReadonlyMap<string, VerifyKey>,
): CheckpointVerdict {
  const key = keys.get(checkpoint.keyId);
  if (key === undefined) return 'unknown key';
  const signature = Buffer.from(checkpoint.signature, 'base64url');
  if (signature.toString('base64url') !== checkpoint.signature) return 'bad signature';
  return verify(null, checkpointStatement(checkpoint), key.key, signature) ? 'valid' : 'bad signature';
}
