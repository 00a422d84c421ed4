/**
 * The only place that talks to the audit tables (Prisma): one store per concern, each built once
 * here on the service's database client.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';
import { AuditLog } from './audit-log.ts';
import { CheckpointStore } from './checkpoint-store.ts';
import { AuditRecords } from './record-query.ts';
import { RetentionStore } from './retention-store.ts';

export interface AuditStores {
  /** Appends to the chain (the ingest; the CLI opens its own: open-audit-log.ts). */
  log: AuditLog;
  checkpoints: CheckpointStore;
  retention: RetentionStore;
  /** One owner's rows, paged (the read side). */
  records: AuditRecords;
}

export function auditStores(prisma: PrismaClient): AuditStores {
  return {
    log: new AuditLog(prisma),
    checkpoints: new CheckpointStore(prisma),
    retention: new RetentionStore(prisma),
    records: new AuditRecords(prisma),
  };
}
