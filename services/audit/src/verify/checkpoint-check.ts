/**
 * What makes a checkpoint trustworthy to verify: a key it trusts (by id, from the configuration)
 * signed exactly this checkpoint (checkpoints/checkpoint-signature.ts), and, when its row is
 * present, the hash it signs is that row's.
 */
import type { Checkpoint } from '../checkpoints/checkpoint-signature.ts';
import { verifyCheckpoint } from '../checkpoints/checkpoint-signature.ts';
import type { VerifyKey } from '../checkpoints/signing-keys.ts';

/** Public keys by key id. */
export type TrustedKeys = ReadonlyMap<string, VerifyKey>;

/** Why the checkpoint cannot be trusted (a phrase naming it), or null. */
export function checkpointProblem(
  checkpoint: Checkpoint,
  keys: TrustedKeys,
  rowHash: string | null,
): string | null {
  const name = `checkpoint at ${checkpoint.seq}`;
  switch (verifyCheckpoint(checkpoint, keys)) {
    case 'unknown key':
      return `${name} is signed by key ${JSON.stringify(checkpoint.keyId)}, which is neither AUDIT_SIGNING_KEY's nor in AUDIT_VERIFY_KEYS`;
    case 'bad signature':
      return `${name} has a signature that does not verify`;
    case 'valid':
      break;
  }
  if (rowHash !== null && rowHash !== checkpoint.hash)
    return `${name} signs hash ${checkpoint.hash.slice(0, 12)}… but row ${checkpoint.seq} has ${rowHash.slice(0, 12)}…`;
  return null;
}
