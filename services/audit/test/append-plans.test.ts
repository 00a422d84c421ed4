/**
 * What one append reads, whatever the table's size when the writer's connection first ran it.
 * plpgsql keeps a statement's plan for the life of the connection: the first append_batch planned
 * its duplicate check on an empty log as a sequential scan of audit.records and kept it, so every
 * later append read the whole log (docs/adr/0072). Here one connection of the service's own role
 * appends on an empty log first, then enough rows for a scan to matter, and the counters of its
 * own transaction (pg_stat_xact_user_tables) show what the next append read.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createPrismaClient, sqlPoolOf } from '@pag/kit';
import type { StorableEvent } from '../src/chain/storable-event.ts';
import { checkAuditEvent } from '../src/chain/storable-event.ts';
import { auditDatabase } from '../src/database.ts';
import { PrismaClient } from '../src/generated/prisma/client.ts';
import type { AppendBatchRow } from '../src/store/audit-log.ts';
import { appendBatchStatement } from '../src/store/audit-log.ts';
import type { AuditDatabase } from './support/audit-database.ts';
import { startAuditDatabase } from './support/audit-database.ts';
import { chainProblem } from './support/chain-check.ts';
import { requestEvent } from './support/events.ts';

let database: AuditDatabase;
let prisma: PrismaClient;
/** The part of one node-postgres connection of the pool this test uses. */
interface Connection {
  query: ReturnType<typeof sqlPoolOf>['query'];
  release(): void;
}
let connection: Connection;
beforeAll(async () => {
  database = await startAuditDatabase();
  prisma = createPrismaClient(PrismaClient, {
    databaseUrl: database.serviceUrl,
    schema: auditDatabase.schema,
  });
  connection = await sqlPoolOf(prisma).connect();
}, 60_000);
afterAll(async () => {
  connection?.release();
  await prisma?.$disconnect();
  await database?.close();
});

function storable(count: number): StorableEvent[] {
  return Array.from({ length: count }, () => {
    const check = checkAuditEvent(requestEvent());
    if (!check.ok) throw new Error(check.problem);
    return check.event;
  });
}

const append = async (events: StorableEvent[]) =>
  (await connection.query<AppendBatchRow>(appendBatchStatement(events, new Date()))).rows[0];

test('an append probes the indexes of a grown log with the plans its connection made on an empty one', async () => {
  // More than plpgsql's five custom plans, so the statements' cached generic plans are in use.
  for (let i = 0; i < 8; i += 1) await append(storable(1));
  for (let i = 0; i < 6; i += 1) await append(storable(500));

  await connection.query('BEGIN');
  const result = await append([...storable(1), ...storable(1)]);
  const { rows } = await connection.query<{ seq_scan: string; seq_tup_read: string; idx_scan: string }>(
    `SELECT seq_scan::text, seq_tup_read::text, idx_scan::text FROM pg_stat_xact_user_tables
      WHERE relid = 'audit.records'::regclass`,
  );
  await connection.query('COMMIT');

  expect(result).toMatchObject({ stored: 2, head_seq: String(8 + 6 * 500 + 2) });
  // No row of the log read one by one: the head and each event id are index probes.
  expect(rows[0]).toMatchObject({ seq_scan: '0', seq_tup_read: '0' });
  expect(Number(rows[0]?.idx_scan)).toBeGreaterThanOrEqual(3);
  expect(chainProblem(await database.records())).toBeNull();
}, 60_000);
