/**
 * What the embedded stack's audit log holds, read from its own PostgreSQL (the superuser URL in
 * DATA_DIR/stack.json): the benchmark checks that every answered request of a load has its row.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createPrismaClient } from '../packages/kit/src/mod.ts';
import { auditDatabase } from '../services/audit/src/database.ts';
import { PrismaClient } from '../services/audit/src/generated/prisma/client.ts';

/** Rows of the gateway's request events for `method path` answered with `status`. */
export async function stackAuditRows(
  dataDir: string,
  request: { method: string; path: string; status: number },
): Promise<number> {
  const { databaseUrl } = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as {
    databaseUrl: string;
  };
  const db = createPrismaClient(PrismaClient, { databaseUrl, schema: auditDatabase.schema });
  try {
    const [row] = await db.$queryRaw<{ rows: bigint }[]>`
      SELECT count(*) AS rows FROM audit.records
      WHERE kind = 'request' AND method = ${request.method} AND path = ${request.path}
        AND status = ${request.status}`;
    return Number(row?.rows ?? 0);
  } finally {
    await db.$disconnect();
  }
}
