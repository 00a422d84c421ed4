/**
 * A real PostgreSQL with the audit migrations applied by the superuser (the tables' owner), the
 * service's own login role (audit-login.ts), and a client of the owner to read every row back:
 * for the tests of the store (writer, checkpoints, retention) without the rest of the service.
 */
import type { AuditRecord } from '@pag/contracts';
import { applyMigrations, createPrismaClient } from '@pag/kit';
import type { TestPostgres } from '@pag/kit/testing';
import { startTestPostgres } from '@pag/kit/testing';
import { auditDatabase } from '../../src/database.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { recordFromRow } from '../../src/store/record-row.ts';
import { createAuditLogin } from './audit-login.ts';

export type StoredRecord = AuditRecord & { prevHash: string };

export interface AuditDatabase extends AsyncDisposable {
  readonly postgres: TestPostgres;
  /** DATABASE_URL of the service's own role. */
  readonly serviceUrl: string;
  /** The tables' owner. */
  readonly owner: PrismaClient;
  /** Every row, by seq. */
  records(): Promise<StoredRecord[]>;
  close(): Promise<void>;
}

export async function startAuditDatabase(): Promise<AuditDatabase> {
  const postgres = await startTestPostgres();
  try {
    await applyMigrations({ databaseUrl: postgres.url, ...auditDatabase });
    const serviceUrl = await createAuditLogin(postgres.url);
    const owner = createPrismaClient(PrismaClient, {
      databaseUrl: postgres.url,
      schema: auditDatabase.schema,
    });
    const close = async () => {
      await owner.$disconnect();
      await postgres.stop();
    };
    return {
      postgres,
      serviceUrl,
      owner,
      records: async () => (await owner.auditRow.findMany({ orderBy: { seq: 'asc' } })).map(recordFromRow),
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}
