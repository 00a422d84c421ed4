/**
 * A stored row (the Prisma model AuditRow) as the contracts' AuditRecord: the one reading of a
 * row, for verify (its chain content) and for the owner's read side. The values come back in the
 * form the writer hashed (chain/record-content.ts): times in UTC to the millisecond, latency to
 * three decimals, 64-bit integers as numbers (safe: sequence numbers and byte counts).
 */
import type { AuditDetail, AuditRecord } from '@pag/contracts';
import type { AuditRow } from '../generated/prisma/client.ts';

export function recordFromRow(row: AuditRow): AuditRecord & { prevHash: string } {
  return {
    seq: Number(row.seq),
    eventId: row.eventId,
    kind: row.kind as AuditRecord['kind'],
    source: row.source as AuditRecord['source'],
    requestId: row.requestId,
    time: row.time.toISOString(),
    recordedAt: row.recordedAt.toISOString(),
    accountId: row.accountId,
    clientId: row.clientId,
    agentId: row.agentId,
    tokenKind: row.tokenKind as AuditRecord['tokenKind'],
    actorType: row.actorType as AuditRecord['actorType'],
    actorId: row.actorId,
    action: row.action,
    target: row.target,
    clientAddress: row.clientAddress,
    method: row.method,
    path: row.path,
    status: row.status,
    decision: row.decision as AuditRecord['decision'],
    reason: row.reason,
    latencyMs: row.latencyMs === null ? null : Number(row.latencyMs.toString()),
    bytesIn: row.bytesIn === null ? null : Number(row.bytesIn),
    bytesOut: row.bytesOut === null ? null : Number(row.bytesOut),
    detail: row.detail as AuditDetail,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}
