/**
 * `pag vault rotate-key` and `pag vault status`: which vault keys the stored tokens are under, and
 * moving every token to the ring's active key without stopping anything.
 *
 * The rotation rewraps each token's 32-byte data key (the value itself is not decrypted; a token
 * of the v1 format of before is sealed afresh, its one decryption) in batches of `batchSize`, each
 * batch one short transaction that locks its rows only, so calls and writes go on meanwhile;
 * running replicas must already hold the new key in their ring (docs/adr/0066). What is left
 * under other keys afterwards (tokens written meanwhile by a replica whose active key is still the
 * old one) is reported, and a key of the ring under which nothing remains can be retired.
 */
import type { KeyUsage, VaultStore } from '../store/vault-store.ts';
import type { VaultKeyRing } from '../vault/key-ring.ts';

export interface VaultKeyStatus {
  activeId: string;
  /** Tokens per key id (null: the v1 format, under VAULT_ENCRYPTION_KEY without an id). */
  usage: KeyUsage[];
  /** Tokens not under the active key. */
  remaining: number;
  /** Keys of the ring, other than the active one, that no token needs any more. */
  retirable: string[];
}

export interface RotationReport extends VaultKeyStatus {
  rewrapped: number;
}

export async function vaultKeyStatus(store: VaultStore, ring: VaultKeyRing): Promise<VaultKeyStatus> {
  const usage = await store.keyUsage();
  // A row may name a key by the id derived from it (stored under VAULT_ENCRYPTION_KEY alone).
  const inUse = new Set(
    usage.map((entry) => (entry.keyId === null ? null : (ring.idOf(entry.keyId) ?? entry.keyId))),
  );
  return {
    activeId: ring.activeId,
    usage,
    remaining: usage
      .filter((entry) => entry.keyId === null || ring.idOf(entry.keyId) !== ring.activeId)
      .reduce((sum, entry) => sum + entry.tokens, 0),
    // A v1 token names no key: while one is left, no key can be said to be unused.
    retirable: inUse.has(null) ? [] : ring.ids.filter((id) => id !== ring.activeId && !inUse.has(id)),
  };
}

export async function rotateVaultKey(
  store: VaultStore,
  ring: VaultKeyRing,
  options: { batchSize?: number; onBatch?: (rewrapped: number) => void | Promise<void> } = {},
): Promise<RotationReport> {
  const batchSize = options.batchSize ?? 100;
  let rewrapped = 0;
  for (;;) {
    const done = await store.rotateBatch(batchSize);
    if (done === 0) break;
    rewrapped += done;
    await options.onBatch?.(rewrapped);
  }
  return { ...(await vaultKeyStatus(store, ring)), rewrapped };
}
