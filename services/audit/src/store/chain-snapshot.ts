/**
 * The log as verify reads it (verify/chain-source.ts): rows and checkpoints by seq, a page at a
 * time, all on one snapshot: a REPEATABLE READ, READ ONLY transaction. Without it a checkpoint
 * written while verify walks could name a row verify's earlier pages did not see, and read as a
 * cut tail.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { ChainRow, ChainSource } from '../verify/chain-source.ts';
import type { Transaction } from './chain-head.ts';
import { checkpointFromRow } from './checkpoint-store.ts';
import { recordFromRow } from './record-row.ts';

/**
 * How long the snapshot may stay open. Prisma ends an interactive transaction after its timeout
 * (a timer: the value must stay below 2^31 ms); a day is far more than a walk of millions of rows
 * takes (tens of thousands of rows a second).
 */
const SNAPSHOT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

function chainSource(tx: Transaction): ChainSource {
  return {
    async firstSeq() {
      const first = await tx.auditRow.findFirst({ orderBy: { seq: 'asc' }, select: { seq: true } });
      return first === null ? null : Number(first.seq);
    },
    async row(seq) {
      const row = await tx.auditRow.findUnique({ where: { seq } });
      return row === null ? null : recordFromRow(row);
    },
    async rowsAfter(after, limit): Promise<ChainRow[]> {
      const rows = await tx.auditRow.findMany({
        where: { seq: { gt: after } },
        orderBy: { seq: 'asc' },
        take: limit,
      });
      return rows.map(recordFromRow);
    },
    async checkpointsAfter(after, limit) {
      const rows = await tx.checkpoint.findMany({
        where: { seq: { gt: after } },
        orderBy: { seq: 'asc' },
        take: limit,
      });
      return rows.map(checkpointFromRow);
    },
    async checkpointAt(seq) {
      const row = await tx.checkpoint.findUnique({ where: { seq } });
      return row === null ? null : checkpointFromRow(row);
    },
    async checkpointBefore(seq) {
      const row = await tx.checkpoint.findFirst({ where: { seq: { lt: seq } }, orderBy: { seq: 'desc' } });
      return row === null ? null : checkpointFromRow(row);
    },
  };
}

/** Runs `use` on one read-only snapshot of the log. */
export function withChainSnapshot<T>(
  prisma: PrismaClient,
  use: (source: ChainSource) => Promise<T>,
): Promise<T> {
  return prisma.$transaction(
    async (tx) => {
      // The first statement of the transaction, as SET TRANSACTION must be.
      await tx.$executeRaw`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`;
      return use(chainSource(tx));
    },
    { timeout: SNAPSHOT_TIMEOUT_MS },
  );
}
