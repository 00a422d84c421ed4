/**
 * An attacker with full database access, for the tamper tests: statements run as the superuser
 * (the tables' owner) in one transaction with `session_replication_role = replica`, which turns
 * the append-only triggers off for that transaction only (a superuser may also drop them; either
 * way the database itself no longer refuses). Also what the honest side writes: signed checkpoints.
 */

import { signCheckpoint } from '../../src/checkpoints/checkpoint-signature.ts';
import type { SigningKey } from '../../src/checkpoints/signing-keys.ts';
import type { PrismaClient } from '../../src/generated/prisma/client.ts';

export async function tamper(owner: PrismaClient, ...statements: string[]): Promise<void> {
  await owner.$transaction([
    owner.$executeRawUnsafe('SET LOCAL session_replication_role = replica'),
    ...statements.map((statement) => owner.$executeRawUnsafe(statement)),
  ]);
}

/** Empties both tables (between tests). */
export function wipe(owner: PrismaClient): Promise<void> {
  return tamper(owner, 'TRUNCATE audit.records, audit.checkpoints');
}

/** Signs and stores a checkpoint of row `seq` (its hash as stored now), as the service would. */
export async function checkpoint(
  owner: PrismaClient,
  key: SigningKey,
  seq: number,
  hash?: string,
): Promise<void> {
  const row = await owner.auditRow.findUnique({ where: { seq } });
  const signed = signCheckpoint(key, { seq, hash: hash ?? (row?.hash as string) }, new Date());
  await owner.checkpoint.create({
    data: { ...signed, seq: BigInt(seq), signedAt: new Date(signed.signedAt) },
  });
}
