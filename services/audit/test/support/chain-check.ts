/**
 * What a test asserts of stored rows with the chain module: seq runs without a gap from the
 * anchor (or 1), each row's prev_hash is the hash before it (the anchor's, or 64 zeros), and each
 * hash is the chain hash of the row's own content. Returns the first problem, or null.
 */
import { chainHash, GENESIS_HASH } from '../../src/chain/chain-hash.ts';
import type { StoredRecord } from './audit-database.ts';

export function chainProblem(rows: StoredRecord[], anchor = { seq: 0, hash: GENESIS_HASH }): string | null {
  let prev = anchor;
  for (const row of rows) {
    if (row.seq !== prev.seq + 1) return `seq ${row.seq} follows ${prev.seq}`;
    if (row.prevHash !== prev.hash) return `seq ${row.seq}: prev_hash is not the hash of ${prev.seq}`;
    if (chainHash(row.prevHash, row) !== row.hash) return `seq ${row.seq}: hash does not match its content`;
    prev = row;
  }
  return null;
}
