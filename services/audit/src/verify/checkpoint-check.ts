/**
 * What makes a checkpoint trustworthy to verify: a key it trusts (by id, from the configuration)
 * signed exactly this checkpoint, and, when its row is present, the hash it signs is that row's.
 */

import { checkpointSignatureValid } from '../checkpoints/checkpoint-signature.ts';
import type { VerifyKey } from '../checkpoints/signing-keys.ts';
import type { StoredCheckpoint } from './chain-source.ts';

/** Public keys by key id. */
export type TrustedKeys = ReadonlyMap<string, VerifyKey>;

/** Why the checkpoint cannot be trusted (a phrase naming it), or null. */
export function checkpointProblem(
  checkpoint: StoredCheckpoint,
  keys: TrustedKeys,
  rowHash: string | null,
): string | null {
  const name = `checkpoint at ${checkpoint.seq}`;
  const key = keys.get(checkpoint.keyId);
  if (key === undefined)
    return `${name} is signed by key ${JSON.stringify(checkpoint.keyId)}, which is neither AUDIT_SIGNING_KEY's nor in AUDIT_VERIFY_KEYS`;
  if (!checkpointSignatureValid(checkpoint, key)) return `${name} has a signature that does not verify`;
  if (rowHash !== null && rowHash !== checkpoint.hash)
    return `${name} signs hash ${checkpoint.hash.slice(0, 12)}… but row ${checkpoint.seq} has ${rowHash.slice(0, 12)}…`;
  return null;
}
