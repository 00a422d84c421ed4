/**
 * What retention reads and calls: whether a segment of rows is old through and through, the hash
 * of one row, and audit.prune_through (the SECURITY DEFINER function that alone may delete rows,
 * and only a prefix anchored by a checkpoint at its last row).
 */
import type { PrismaClient } from '../generated/prisma/client.ts';

export class RetentionStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** The smallest seq stored, or null on an empty log. */
  async firstSeq(): Promise<number | null> {
    const [row] = await this.#prisma.$queryRaw<
      { seq: bigint | null }[]
    >`SELECT min(seq) AS seq FROM audit.records`;
    return row?.seq === null || row?.seq === undefined ? null : Number(row.seq);
  }

  /**
   * Whether every row with after < seq ≤ through was recorded before `cutoff` (false when there is
   * none). Reads only those rows (a range of the primary key): the ones about to be deleted.
   */
  async allRecordedBefore(after: number, through: number, cutoff: Date): Promise<boolean> {
    const [row] = await this.#prisma.$queryRaw<{ old: boolean | null }[]>`
      SELECT bool_and(recorded_at < ${cutoff.toISOString()}::timestamptz) AS old
      FROM audit.records WHERE seq > ${after} AND seq <= ${through}`;
    return row?.old === true;
  }

  async hashAt(seq: number): Promise<string | null> {
    const [row] = await this.#prisma.$queryRaw<
      { hash: string }[]
    >`SELECT hash FROM audit.records WHERE seq = ${seq}`;
    return row?.hash ?? null;
  }

  /** Deletes the rows with seq ≤ through; the number deleted. */
  async pruneThrough(through: number): Promise<number> {
    const [row] = await this.#prisma.$queryRaw<{ deleted: bigint }[]>`
      SELECT audit.prune_through(${through}::bigint) AS deleted`;
    return Number(row?.deleted ?? 0);
  }
}
