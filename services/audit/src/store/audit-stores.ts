/**
 * The only place that talks to the audit tables (Prisma): one store per concern, each built once
 * here on the service's database client.
 */
import type { PrismaClient } from '../generated/prisma/client.ts';
import { AuditLog } from './audit-log.ts';
import { AuditRecords } from './record-query.ts';

export interface AuditStores {
  /** Appends to the chain (the ingest; the CLI builds its own). */
  log: AuditLog;
  /** One owner's rows, paged (the read side). */
  records: AuditRecords;
}

export function auditStores(prisma: PrismaClient): AuditStores {
  return { log: new AuditLog(prisma), records: new AuditRecords(prisma) };
}
