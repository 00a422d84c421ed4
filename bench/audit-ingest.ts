/**
 * The audit log's sustained ingest: request events written through AuditLog.append (the writer the
 * ingest calls: one transaction per batch under the append lock, the head read, stored event ids
 * dropped, seq and hash chained in JS, one INSERT) in batches of BATCH_SIZE, one after the other as
 * the ingest's one consumer commits them; beside a plain batched INSERT of the same rows, in the
 * same PostgreSQL, into a table with the same columns and nothing else (`LIKE audit.records`: no
 * key, no unique event id, no index, no trigger, no lock, no chain); and, to tell the indexes' share
 * from the writer's own, into a table with the same columns and the same key and indexes
 * (`INCLUDING INDEXES`) but no trigger, lock, dedup query or chain. The writer connects as the
 * service's own role (a member of pag_audit_writer), as in production.
 *
 * PostgreSQL is the embedded one the stack starts (kit's startEmbeddedPostgres, its defaults:
 * synchronous commit, so each batch waits for its WAL flush), in this process's reach; the writer
 * runs in this process as it runs in the audit service's.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestAuditEvent } from '@pag/contracts';
import { applyMigrations, createPrismaClient, startEmbeddedPostgres } from '../packages/kit/src/mod.ts';
import { CONTENT_FIELDS } from '../services/audit/src/chain/chain-hash.ts';
import { recordContent } from '../services/audit/src/chain/record-content.ts';
import { auditDatabase } from '../services/audit/src/database.ts';
import { PrismaClient } from '../services/audit/src/generated/prisma/client.ts';
import { openAuditLog } from '../services/audit/src/store/open-audit-log.ts';

/** As the ingest's AUDIT_BATCH_MAX default: the most events one transaction commits. */
export const BATCH_SIZE = 500;
/** The login role the embedded stack gives the audit service. */
const SERVICE_ROLE = 'pag_audit';
const PLAIN_TABLE = 'bench.plain_records';
const INDEXED_TABLE = 'bench.indexed_records';

export interface IngestMeasurement {
  events: number;
  batches: number;
  eventsPerSecond: number;
  batchP50Ms: number;
  batchP99Ms: number;
}

export interface IngestResult {
  chain: IngestMeasurement;
  plain: IngestMeasurement;
  indexed: IngestMeasurement;
  /** Rows in each table afterwards (warm-up included), counted by PostgreSQL. */
  rows: { chain: number; plain: number; indexed: number };
}

/** Request events as the gateway emits them: a few owners and agents, varied paths and statuses. */
function requestBatch(size: number): RequestAuditEvent[] {
  const owners = ['3b6a1e0c-2f4d-4a8e-9c1b-7d5e6f8a9b0c', '9d3f5a21-6c8b-4e07-a1d2-5b4c3e2f1a09'];
  return Array.from({ length: size }, (_, i) => ({
    kind: 'request',
    eventId: randomUUID(),
    source: 'gateway',
    requestId: randomBytes(12).toString('base64url'),
    time: new Date().toISOString(),
    accountId: owners[i % owners.length] ?? null,
    clientId: `client-${i % 7}`,
    agentId: `agt_${i % 7}`,
    decision: i % 10 === 0 ? 'denied' : 'allowed',
    reason: i % 10 === 0 ? 'INSUFFICIENT_SCOPE' : null,
    tokenKind: 'dashboard',
    clientAddress: '127.0.0.1',
    method: i % 3 === 0 ? 'POST' : 'GET',
    path: ['/api/v1/tokens/me/capabilities', '/api/v1/memory', '/api/v1/services/github/repos'][i % 3] ?? '/',
    status: i % 10 === 0 ? 403 : 200,
    latencyMs: 1 + (i % 50) / 7,
    bytesIn: i % 3 === 0 ? 240 : 0,
    bytesOut: 1_024 + i,
  }));
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function summary(events: number, batchMs: number[]): IngestMeasurement {
  const total = batchMs.reduce((sum, ms) => sum + ms, 0);
  const sorted = [...batchMs].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    events,
    batches: batchMs.length,
    eventsPerSecond: total === 0 ? 0 : (events * 1000) / total,
    batchP50Ms: round(percentile(sorted, 50)),
    batchP99Ms: round(percentile(sorted, 99)),
  };
}

/** A plain table's INSERT: the same unnest of one array per column as the writer's. */
const plainInsert = (table: string) => `
  INSERT INTO ${table} (seq, event_id, kind, source, request_id, time, recorded_at, account_id,
    client_id, agent_id, token_kind, actor_type, actor_id, action, target, client_address, method,
    path, status, decision, reason, latency_ms, bytes_in, bytes_out, detail, prev_hash, hash)
  SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[], $5::text[],
    $6::timestamptz[], $7::timestamptz[], $8::text[], $9::text[], $10::text[], $11::text[],
    $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[],
    $19::integer[], $20::text[], $21::text[], $22::numeric[], $23::bigint[], $24::bigint[],
    $25::jsonb[], $26::text[], $27::text[])`;

/** The same rows as the writer stores, with a placeholder of a hash's length in both hash columns. */
function plainColumns(events: RequestAuditEvent[], firstSeq: number): unknown[][] {
  const recordedAt = new Date();
  const rows = events.map((event) => recordContent(event, recordedAt));
  const noHash = '0'.repeat(64);
  return [
    rows.map((_, i) => firstSeq + i),
    // The content fields in the INSERT's column order; `detail` (the last) as JSON text.
    ...CONTENT_FIELDS.filter((field) => field !== 'detail').map((field) => rows.map((row) => row[field])),
    rows.map((row) => JSON.stringify(row.detail)),
    rows.map(() => noHash),
    rows.map(() => noHash),
  ];
}

/**
 * Appends batches through the chain until `durationSeconds` were spent appending (after a warm-up of
 * `warmUpBatches`), each batch followed by the same events' INSERT into each plain table.
 */
export async function measureIngest(options: {
  durationSeconds: number;
  warmUpBatches?: number;
}): Promise<IngestResult> {
  const dir = await mkdtemp(join(tmpdir(), 'pag-bench-audit-'));
  // mkdtemp makes it 0700; run as root, PostgreSQL runs as `postgres` and must get through.
  await chmod(dir, 0o755);
  try {
    await using postgres = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres') });
    await applyMigrations({ databaseUrl: postgres.url, ...auditDatabase });
    const owner = createPrismaClient(PrismaClient, {
      databaseUrl: postgres.url,
      schema: auditDatabase.schema,
    });
    try {
      const password = randomBytes(24).toString('hex');
      await owner.$executeRawUnsafe(
        `CREATE ROLE ${SERVICE_ROLE} LOGIN PASSWORD '${password}' IN ROLE pag_audit_writer`,
      );
      await owner.$executeRawUnsafe('CREATE SCHEMA bench');
      await owner.$executeRawUnsafe(`CREATE TABLE ${PLAIN_TABLE} (LIKE audit.records)`);
      await owner.$executeRawUnsafe(`CREATE TABLE ${INDEXED_TABLE} (LIKE audit.records INCLUDING INDEXES)`);
      const serviceUrl = new URL(postgres.url);
      serviceUrl.username = SERVICE_ROLE;
      serviceUrl.password = password;
      await using writer = openAuditLog({ databaseUrl: serviceUrl.toString() });

      const inserter = (table: string) => {
        const sql = plainInsert(table);
        let seq = 1;
        return async (events: RequestAuditEvent[]) => {
          await owner.$executeRawUnsafe(sql, ...plainColumns(events, seq));
          seq += events.length;
        };
      };
      const insertPlain = inserter(PLAIN_TABLE);
      const insertIndexed = inserter(INDEXED_TABLE);
      /** Runs `write` and returns how long it took, in ms. */
      const timed = async (write: () => Promise<unknown>) => {
        const startedAt = performance.now();
        await write();
        return performance.now() - startedAt;
      };
      const warmUpBatches = options.warmUpBatches ?? 10;
      for (let i = 0; i < warmUpBatches; i += 1) {
        const batch = requestBatch(BATCH_SIZE);
        await writer.log.append(batch);
        await insertPlain(batch);
        await insertIndexed(batch);
      }

      // Turn about, batch by batch, so that all three see the same machine (other processes come and go).
      const chainMs: number[] = [];
      const plainMs: number[] = [];
      const indexedMs: number[] = [];
      let appending = 0;
      while (appending < options.durationSeconds * 1000) {
        const batch = requestBatch(BATCH_SIZE);
        const startedAt = performance.now();
        const { stored } = await writer.log.append(batch);
        const ms = performance.now() - startedAt;
        if (stored !== batch.length) throw new Error(`the writer stored ${stored} of ${batch.length} events`);
        chainMs.push(ms);
        appending += ms;
        plainMs.push(await timed(() => insertPlain(batch)));
        indexedMs.push(await timed(() => insertIndexed(batch)));
      }
      const events = chainMs.length * BATCH_SIZE;
      const [counts] = await owner.$queryRawUnsafe<{ chain: bigint; plain: bigint; indexed: bigint }[]>(
        `SELECT (SELECT count(*) FROM audit.records) AS chain, (SELECT count(*) FROM ${PLAIN_TABLE}) AS plain,
          (SELECT count(*) FROM ${INDEXED_TABLE}) AS indexed`,
      );
      const rows = {
        chain: Number(counts?.chain),
        plain: Number(counts?.plain),
        indexed: Number(counts?.indexed),
      };
      const written = (warmUpBatches + chainMs.length) * BATCH_SIZE;
      if (Object.values(rows).some((count) => count !== written))
        throw new Error(`${written} events written, but the tables hold ${JSON.stringify(rows)} rows`);
      return {
        chain: summary(events, chainMs),
        plain: summary(events, plainMs),
        indexed: summary(events, indexedMs),
        rows,
      };
    } finally {
      await owner.$disconnect();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
