/**
 * The checkpoints table: append (a checkpoint at a seq already checkpointed, e.g. by another
 * replica at the same head, is kept as it was), the newest, the one at a seq, all from a seq on.
 */
import type { Checkpoint } from '../checkpoints/checkpoint-signature.ts';
import type { PrismaClient } from '../generated/prisma/client.ts';

interface CheckpointRow {
  seq: bigint;
  hash: string;
  signedAt: Date;
  keyId: string;
  signature: string;
}

export function checkpointFromRow(row: CheckpointRow): Checkpoint {
  return {
    seq: Number(row.seq),
    hash: row.hash,
    signedAt: row.signedAt.toISOString(),
    keyId: row.keyId,
    signature: row.signature,
  };
}

export class CheckpointStore {
  readonly #prisma: PrismaClient;

  constructor(prisma: PrismaClient) {
    this.#prisma = prisma;
  }

  /** Whether this call wrote it (false: one at that seq existed). */
  async add(checkpoint: Checkpoint): Promise<boolean> {
    const written = await this.#prisma.$executeRaw`
      INSERT INTO audit.checkpoints (seq, hash, signed_at, key_id, signature)
      VALUES (${checkpoint.seq}, ${checkpoint.hash}, ${checkpoint.signedAt}::timestamptz, ${checkpoint.keyId},
        ${checkpoint.signature})
      ON CONFLICT (seq) DO NOTHING`;
    return written === 1;
  }

  async newest(): Promise<Checkpoint | null> {
    const row = await this.#prisma.checkpoint.findFirst({ orderBy: { seq: 'desc' } });
    return row === null ? null : checkpointFromRow(row);
  }

  async at(seq: number): Promise<Checkpoint | null> {
    const row = await this.#prisma.checkpoint.findUnique({ where: { seq: BigInt(seq) } });
    return row === null ? null : checkpointFromRow(row);
  }

  /** Every checkpoint with seq ≥ from, by seq. */
  async from(seq: number): Promise<Checkpoint[]> {
    const rows = await this.#prisma.checkpoint.findMany({
      where: { seq: { gte: BigInt(seq) } },
      orderBy: { seq: 'asc' },
    });
    return rows.map(checkpointFromRow);
  }
}
