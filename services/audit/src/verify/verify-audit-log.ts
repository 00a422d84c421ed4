/**
 * Verify against a database: for the `pag audit verify` command (and anyone with the log's
 * DATABASE_URL; reading is all it does, so any role that may SELECT the audit tables will do).
 * The trusted keys come from the caller's configuration (signing-keys.ts verifyKeys: the public
 * half of AUDIT_SIGNING_KEY and AUDIT_VERIFY_KEYS), never from the database.
 */
import type { Logger } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import { auditDatabase } from '../database.ts';
import { PrismaClient } from '../generated/prisma/client.ts';
import { withChainSnapshot } from '../store/chain-snapshot.ts';
import type { VerifyResult } from './chain-break.ts';
import type { VerifyOptions } from './verify-chain.ts';
import { verifyChain } from './verify-chain.ts';

export interface VerifyAuditLogOptions extends VerifyOptions {
  readonly databaseUrl: string;
  readonly logger?: Logger;
}

export async function verifyAuditLog(options: VerifyAuditLogOptions): Promise<VerifyResult> {
  const { databaseUrl, logger, ...walk } = options;
  const prisma = createPrismaClient(PrismaClient, { databaseUrl, schema: auditDatabase.schema, logger });
  try {
    return await withChainSnapshot(prisma, (source) => verifyChain(source, walk));
  } finally {
    await prisma.$disconnect();
  }
}
