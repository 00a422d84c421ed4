/**
 * Verify: walks the log in seq order, a page at a time, recomputing every row's hash with the one
 * chain module and checking every checkpoint on the way; stops at the first broken seq
 * (chain-break.ts says which kind, and why). The rules (docs/adr/0039):
 *
 * - Start: the log's first row F. F = 1 follows 64 zeros; F > 1 (retention) follows the signed
 *   checkpoint at F - 1 (the anchor). `from` N (above F) starts at N from row N - 1's stored hash,
 *   taken on trust: only rows from N on are checked.
 * - Each row, in this order: its seq is the one after the previous row's (else `missing`); its hash
 *   is the chain hash of its own content and prev_hash (else `edited`); its prev_hash is the
 *   previous row's hash (else `reordered`); a checkpoint at its seq is signed by a trusted key and
 *   signs its hash (else `checkpoint mismatch`).
 * - End: a checkpoint past the last row, signed by a trusted key, proves rows were cut (`missing`).
 *   Rows cut after the newest checkpoint cannot be seen: that is what the checkpoint interval bounds.
 */
import { chainHash, GENESIS_HASH } from '../chain/chain-hash.ts';
import type { Checkpoint } from '../checkpoints/checkpoint-signature.ts';
import type {
  ChainBreak,
  ChainBreakKind,
  ChainStart,
  SignedHead,
  VerifyProgress,
  VerifyResult,
} from './chain-break.ts';
import type { ChainRow, ChainSource } from './chain-source.ts';
import { PagedCursor } from './chain-source.ts';
import type { TrustedKeys } from './checkpoint-check.ts';
import { checkpointProblem } from './checkpoint-check.ts';

export interface VerifyOptions {
  /** The public keys whose checkpoints verify trusts, by key id (config only, never the database). */
  readonly keys: TrustedKeys;
  /** Check only rows from this seq on (row from - 1's stored hash is trusted). */
  readonly from?: number;
  /** Rows read per query. */
  readonly pageSize?: number;
  readonly onProgress?: (progress: VerifyProgress) => void;
}

const PAGE_SIZE = 2_000;

interface Link {
  readonly seq: number;
  readonly hash: string;
}

type Start = { ok: true; link: Link; start: ChainStart } | ChainBreak;

function broken(seq: number, kind: ChainBreakKind, why: string, rows = 0): ChainBreak {
  return { ok: false, seq, kind, why, rows };
}

function range(first: number, last: number): string {
  return first === last ? `row ${first} is` : `rows ${first} to ${last} are`;
}

async function findStart(source: ChainSource, keys: TrustedKeys, from: number | undefined): Promise<Start> {
  const first = await source.firstSeq();
  if (first !== null && from !== undefined && from > first) {
    const trusted = await source.row(from - 1);
    if (trusted !== null)
      return { ok: true, link: trusted, start: { from: 'trusted row', seq: trusted.seq } };
    const [later] = await source.rowsAfter(from - 1, 1);
    if (later !== undefined)
      return broken(
        from - 1,
        'missing',
        `row ${from - 1}, whose stored hash --from ${from} starts from, is missing`,
      );
    // N past the last row: no row to check, but a signed checkpoint from N on still shows a cut
    // tail. No row follows, so the link's hash is never compared.
    return {
      ok: true,
      link: { seq: from - 1, hash: GENESIS_HASH },
      start: { from: 'trusted row', seq: from - 1 },
    };
  }
  if (first === null || first === 1)
    return { ok: true, link: { seq: 0, hash: GENESIS_HASH }, start: { from: 'genesis' } };
  if (first < 1) return broken(first, 'reordered', `no row comes before seq 1, but row ${first} is stored`);
  const anchor = await source.checkpointAt(first - 1);
  if (anchor === null) {
    const below = await source.checkpointBefore(first - 1);
    const gap = (below?.seq ?? 0) + 1;
    return broken(
      gap,
      'missing',
      `${range(gap, first - 1)} missing, and no checkpoint at ${first - 1} anchors the log (retention always keeps one)`,
    );
  }
  const problem = checkpointProblem(anchor, keys, null);
  if (problem !== null) return broken(anchor.seq, 'checkpoint mismatch', `the anchor ${problem}`);
  return { ok: true, link: anchor, start: { from: 'checkpoint', seq: anchor.seq } };
}

/** The row's hash recomputed; null when its stored prev_hash is not even a hash (it was changed). */
function rehash(row: ChainRow): string | null {
  try {
    return chainHash(row.prevHash, row);
  } catch {
    return null;
  }
}

/** The first broken rule of one row, given the link before it. */
function rowProblem(row: ChainRow, prev: Link): { kind: ChainBreakKind; why: string } | null {
  if (row.seq !== prev.seq + 1)
    return {
      kind: 'missing',
      why: `${range(prev.seq + 1, row.seq - 1)} missing (the next row is ${row.seq})`,
    };
  if (rehash(row) !== row.hash)
    return {
      kind: 'edited',
      why: 'its hash is not the hash of its content and prev_hash (the row was changed)',
    };
  if (row.prevHash !== prev.hash)
    return {
      kind: 'reordered',
      why: `its prev_hash is not the hash of row ${prev.seq} (rows were swapped, moved, or removed and renumbered)`,
    };
  return null;
}

export async function verifyChain(source: ChainSource, options: VerifyOptions): Promise<VerifyResult> {
  const pageSize = options.pageSize ?? PAGE_SIZE;
  const start = await findStart(source, options.keys, options.from);
  if (!start.ok) return start;
  const after = start.link.seq;
  const records = new PagedCursor((seq, limit) => source.rowsAfter(seq, limit), after, pageSize);
  const checkpoints = new PagedCursor((seq, limit) => source.checkpointsAfter(seq, limit), after, pageSize);
  try {
    return await walk(start, records, checkpoints, { ...options, pageSize });
  } finally {
    // A page read ahead must finish before the caller ends the snapshot.
    await Promise.all([records.settle(), checkpoints.settle()]);
  }
}

async function walk(
  start: { link: Link; start: ChainStart },
  records: PagedCursor<ChainRow>,
  checkpoints: PagedCursor<Checkpoint>,
  options: VerifyOptions & { pageSize: number },
): Promise<VerifyResult> {
  const { keys, onProgress, pageSize } = options;
  let prev = start.link;
  let rows = 0;
  let lastCheckpoint: SignedHead | null = null;
  for (let row = await records.next(); row !== undefined; row = await records.next()) {
    const problem = rowProblem(row, prev);
    // A gap is named at its first seq, which has no row.
    if (problem !== null)
      return broken(problem.kind === 'missing' ? prev.seq + 1 : row.seq, problem.kind, problem.why, rows);
    const checkpoint = await nextCheckpointAt(checkpoints, row.seq);
    if (checkpoint !== undefined) {
      const mismatch = checkpointProblem(checkpoint, keys, row.hash);
      if (mismatch !== null)
        return broken(
          row.seq,
          'checkpoint mismatch',
          `${mismatch}${recomputedSince(lastCheckpoint, start.start)}`,
          rows,
        );
      lastCheckpoint = checkpoint;
    }
    prev = row;
    rows += 1;
    if (rows % pageSize === 0) onProgress?.({ rows, seq: row.seq });
  }
  const beyond = await checkpoints.next();
  if (beyond !== undefined) {
    const problem = checkpointProblem(beyond, keys, null);
    if (problem !== null) return broken(beyond.seq, 'checkpoint mismatch', problem, rows);
    return broken(
      prev.seq + 1,
      'missing',
      `${range(prev.seq + 1, beyond.seq)} missing: the checkpoint at ${beyond.seq} signs them (the tail was cut)`,
      rows,
    );
  }
  return {
    ok: true,
    rows,
    start: start.start,
    lastSeq: rows === 0 ? null : prev.seq,
    lastCheckpoint: lastCheckpoint && {
      seq: lastCheckpoint.seq,
      hash: lastCheckpoint.hash,
      signedAt: lastCheckpoint.signedAt,
    },
  };
}

/** The checkpoint at `seq`, if any; checkpoints come in seq order and none is below `seq` here. */
async function nextCheckpointAt(
  checkpoints: PagedCursor<Checkpoint>,
  seq: number,
): Promise<Checkpoint | undefined> {
  const next = await checkpoints.peek();
  return next?.seq === seq ? checkpoints.next() : undefined;
}

/** Where the changed row must be when a checkpoint disagrees with a chain that is intact up to it. */
function recomputedSince(previous: SignedHead | null, start: ChainStart): string {
  const after = previous?.seq ?? (start.from === 'genesis' ? 0 : start.seq);
  return `; a row after ${after} was changed and the chain recomputed from it`;
}
