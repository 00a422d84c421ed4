/**
 * When each vault token was last used (`vault_tokens.last_used_at`, shown to the owner), written
 * once per token per LAST_USED_FLUSH_MS instead of once per call: a burst of calls with one
 * credential is one UPDATE a second, not one per call (docs/adr/0067). The time written is that of
 * the token's last call in the batch. flush() writes what is pending at once (shutdown calls it
 * before the store waits for its writes).
 */
import type { VaultStore } from '../store/vault-store.ts';

export const LAST_USED_FLUSH_MS = 1_000;

interface Use {
  accountId: string;
  tokenId: string;
  at: Date;
}

export class LastUsedBatch {
  readonly #store: Pick<VaultStore, 'touch'>;
  readonly #flushMs: number;
  readonly #pending = new Map<string, Use>();
  #timer: NodeJS.Timeout | undefined;

  constructor(store: Pick<VaultStore, 'touch'>, flushMs = LAST_USED_FLUSH_MS) {
    this.#store = store;
    this.#flushMs = flushMs;
  }

  /** The token was used now; written with the next flush. */
  used(accountId: string, tokenId: string, at = new Date()): void {
    this.#pending.set(tokenId, { accountId, tokenId, at });
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.flush(), this.#flushMs);
      this.#timer.unref();
    }
  }

  /** Hands every pending time to the store (which writes it in the background). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const use of this.#pending.values()) this.#store.touch(use.accountId, use.tokenId, use.at);
    this.#pending.clear();
  }
}
