/**
 * The head of the chain, which the next row follows: the newest row; when retention left no row
 * (it never does: it always keeps the newest), the newest checkpoint; on an empty log, seq 0 and
 * GENESIS_HASH. And the lock that makes one writer at a time over the whole database.
 */
import { GENESIS_HASH } from '../chain/chain-hash.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

/** An interactive transaction's client (verify reads on one snapshot: chain-snapshot.ts). */
export type Transaction = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

type Reader = Pick<PrismaClient, '$queryRaw'>;

/**
 * pg_advisory_xact_lock key of the append lock: "pag_audi" in ASCII, a constant of this log.
 * audit.append_batch takes it (its migration spells the same number in decimal).
 */
export const APPEND_LOCK_KEY = 0x7061675f61756469n;

export async function readHead(db: Reader): Promise<ChainHead> {
  const [row] = await db.$queryRaw<{ seq: bigint; hash: string }[]>`
    SELECT seq, hash FROM audit.records ORDER BY seq DESC LIMIT 1`;
  if (row !== undefined) return { seq: Number(row.seq), hash: row.hash };
  const [anchor] = await db.$queryRaw<{ seq: bigint; hash: string }[]>`
    SELECT seq, hash FROM audit.checkpoints ORDER BY seq DESC LIMIT 1`;
  if (anchor !== undefined) return { seq: Number(anchor.seq), hash: anchor.hash };
  return { seq: 0, hash: GENESIS_HASH };
}
