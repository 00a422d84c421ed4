/**
 * What verify concludes (docs/adr/0039): the whole log checked, or the first sequence number where
 * it is broken and how. The kinds, and the rule that names each:
 * - `edited`: the row's stored hash is not the chain hash of its own content and prev_hash;
 * - `missing`: a sequence number has no row (a gap; rows before the first one with no signed
 *   checkpoint anchoring them; or rows cut from the tail that a signed checkpoint covers);
 * - `reordered`: the row is consistent with itself, but its prev_hash is not the hash of the row
 *   before it (rows swapped, moved, or removed and renumbered);
 * - `checkpoint mismatch`: a checkpoint's signature does not verify, its key is not one verify
 *   trusts, or the hash it signs is not the hash of the row at its seq (the chain was recomputed
 *   after a change).
 */

export type ChainBreakKind = 'edited' | 'missing' | 'reordered' | 'checkpoint mismatch';

export interface ChainBreak {
  readonly ok: false;
  /** The first broken sequence number. */
  readonly seq: number;
  readonly kind: ChainBreakKind;
  /** One sentence for the operator. */
  readonly why: string;
  /** Rows found consistent before it. */
  readonly rows: number;
}

/** Where the checked rows start from. */
export type ChainStart =
  /** seq 1, after 64 zeros. */
  | { readonly from: 'genesis' }
  /** After retention: the signed checkpoint at the first row's seq - 1. */
  | { readonly from: 'checkpoint'; readonly seq: number }
  /** `--from N`: row N - 1's stored hash, taken on trust. */
  | { readonly from: 'trusted row'; readonly seq: number };

export interface SignedHead {
  readonly seq: number;
  readonly hash: string;
  readonly signedAt: string;
}

export interface ChainIntact {
  readonly ok: true;
  /** Rows checked. */
  readonly rows: number;
  readonly start: ChainStart;
  /** The newest row checked, or null when there was none. */
  readonly lastSeq: number | null;
  /** The newest checkpoint checked (worth keeping outside the database: see the ADR). */
  readonly lastCheckpoint: SignedHead | null;
}

export type VerifyResult = ChainIntact | ChainBreak;

/** After each page of rows, for a progress line. */
export interface VerifyProgress {
  readonly rows: number;
  readonly seq: number;
}
