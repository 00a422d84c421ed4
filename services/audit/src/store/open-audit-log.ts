/**
 * An AuditLog on its own database client, for whoever appends without running the service (tests,
 * the ingest benchmark). close() disconnects the client.
 */
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import { auditDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { AuditLog } from './audit-log.ts';

export interface OpenAuditLog extends AsyncDisposable {
  readonly log: AuditLog;
  close(): Promise<void>;
}

export function openAuditLog(options: {
  databaseUrl: string;
  logger?: Logger;
  now?: () => Date;
}): OpenAuditLog {
  const { databaseUrl, logger, now } = options;
  const prisma = createPrismaClient(PrismaClient, { databaseUrl, logger, schema: auditDatabase.schema });
  const close = () => prisma.$disconnect();
  return { log: new AuditLog(prisma, { now }), close, [Symbol.asyncDispose]: close };
}
