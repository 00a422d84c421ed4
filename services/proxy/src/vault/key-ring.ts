/**
 * The vault's key-encryption keys (KEKs), by id, and the one new data keys are wrapped under.
 *
 * What it enforces: every key is 32 bytes (AES-256); ids are short names (letters, digits, `_`,
 * `-`), unique in the ring; the active id names a key of the ring. A row names the id of the key
 * its data key is wrapped under, so a ring holding the old and the new key reads every row while
 * `pag vault rotate-key` moves them (docs/adr/0066-envelope-encrypted-vault.md).
 *
 * A deployment with the single VAULT_ENCRYPTION_KEY of before gets a ring of one, under an id
 * derived from the key (`legacyKeyId`): HMAC-SHA256 of a fixed label under the key, so the id is
 * stable across restarts and replicas and tells nothing about the key. Every key of a ring also
 * answers to its derived id, so rows written under VAULT_ENCRYPTION_KEY stay readable when the
 * same key moves into VAULT_KEYS under a name of its own.
 */
import { createHmac } from 'node:crypto';

export const KEY_ID = /^[A-Za-z0-9_-]{1,40}$/;

export class VaultKeyError extends Error {
  override name = 'VaultKeyError';
}

/** The id VAULT_ENCRYPTION_KEY's key goes by in the ring. */
export function legacyKeyId(key: Buffer): string {
  return `key-${createHmac('sha256', key).update('pag vault key id v1').digest('base64url').slice(0, 12)}`;
}

export class VaultKeyRing {
  readonly activeId: string;
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly #derived: ReadonlyMap<string, Buffer>;

  constructor(keys: ReadonlyMap<string, Buffer>, activeId: string) {
    for (const [id, key] of keys) {
      if (!KEY_ID.test(id)) throw new VaultKeyError(`vault key id ${JSON.stringify(id)} is not a short name`);
      if (key.length !== 32) throw new VaultKeyError(`vault key ${id} must be 32 bytes (AES-256).`);
    }
    if (!keys.has(activeId))
      throw new VaultKeyError(`the active vault key ${activeId} is not in the key ring`);
    this.#keys = new Map(keys);
    this.#derived = new Map([...keys.values()].map((key) => [legacyKeyId(key), key]));
    this.activeId = activeId;
  }

  /** A ring of one key (VAULT_ENCRYPTION_KEY alone), under its derived id. */
  static single(key: Buffer): VaultKeyRing {
    const id = legacyKeyId(key);
    return new VaultKeyRing(new Map([[id, key]]), id);
  }

  get ids(): string[] {
    return [...this.#keys.keys()];
  }

  get active(): Buffer {
    return this.key(this.activeId);
  }

  /** The key under this id; a row naming a key the ring lacks says which one to add back. */
  key(id: string): Buffer {
    const key = this.#keys.get(id) ?? this.#derived.get(id);
    if (key === undefined) {
      throw new VaultKeyError(
        `vault key ${id} is not in the key ring (VAULT_KEYS / VAULT_ENCRYPTION_KEY): rows are still wrapped under it`,
      );
    }
    return key;
  }

  /** The ring's own id for a key id a row names (its own, or one derived from a key), if any. */
  idOf(keyId: string): string | undefined {
    if (this.#keys.has(keyId)) return keyId;
    const key = this.#derived.get(keyId);
    return key === undefined ? undefined : [...this.#keys].find(([, candidate]) => candidate === key)?.[0];
  }

  /** Every key, the active one first: the candidates for a value stored before key ids existed. */
  all(): Buffer[] {
    return [this.active, ...[...this.#keys].filter(([id]) => id !== this.activeId).map(([, key]) => key)];
  }
}
