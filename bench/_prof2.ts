import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyMigrations, createPrismaClient, startEmbeddedPostgres } from '../packages/kit/src/mod.ts';
import { chainHash } from '../services/audit/src/chain/chain-hash.ts';
import { recordContent } from '../services/audit/src/chain/record-content.ts';
import { checkAuditEvent } from '../services/audit/src/chain/storable-event.ts';
import { auditDatabase } from '../services/audit/src/database.ts';
import { PrismaClient } from '../services/audit/src/generated/prisma/client.ts';
import { lockLog, readHead } from '../services/audit/src/store/chain-head.ts';

const dir = await mkdtemp(join(tmpdir(), 'pag-prof-'));
await chmod(dir, 0o755);
await using pg = await startEmbeddedPostgres({ dataDir: join(dir, 'pg') });
await applyMigrations({ databaseUrl: pg.url, ...auditDatabase });
const db = createPrismaClient(PrismaClient, { databaseUrl: pg.url, schema: 'audit' });
const ev = () =>
  ({
    kind: 'request',
    eventId: randomUUID(),
    source: 'gateway',
    requestId: randomBytes(12).toString('base64url'),
    time: new Date().toISOString(),
    accountId: '3b6a1e0c-2f4d-4a8e-9c1b-7d5e6f8a9b0c',
    clientId: 'c',
    agentId: 'a',
    decision: 'allowed',
    reason: null,
    tokenKind: 'dashboard',
    clientAddress: '127.0.0.1',
    method: 'GET',
    path: '/api/v1/memory',
    status: 200,
    latencyMs: 1.25,
    bytesIn: 0,
    bytesOut: 100,
  }) as const;
const tot: Record<string, number> = {};
const add = (k: string, t: number) => {
  tot[k] = (tot[k] ?? 0) + performance.now() - t;
  return performance.now();
};
for (let r = 0; r < 40; r++) {
  const events = Array.from({ length: 500 }, ev);
  let t = performance.now();
  const checked = events.map((e) => {
    const c = checkAuditEvent(e);
    if (!c.ok) throw 1;
    return c.event;
  });
  t = add('check', t);
  await db.$transaction(async (tx) => {
    t = add('begin', t);
    await lockLog(tx);
    t = add('lock', t);
    const head = await readHead(tx);
    t = add('head', t);
    const ids = checked.map((e) => e.eventId);
    await tx.$queryRaw`SELECT event_id::text FROM audit.records WHERE event_id = ANY(${ids}::uuid[])`;
    t = add('dedup', t);
    const now = new Date();
    let prev = head.hash;
    let seq = head.seq;
    const rows = checked.map((e) => {
      const c = recordContent(e, now);
      const h = chainHash(prev, c);
      prev = h;
      seq++;
      return { ...c, seq, hash: h };
    });
    t = add('hash', t);
    await tx.$executeRaw`INSERT INTO audit.records (seq, event_id, kind, source, request_id, time, recorded_at, action, decision, prev_hash, hash, account_id, agent_id)
      SELECT * FROM unnest(${rows.map((r) => r.seq)}::bigint[], ${rows.map((r) => r.eventId)}::uuid[], ${rows.map((r) => r.kind)}::text[], ${rows.map((r) => r.source)}::text[], ${rows.map((r) => r.requestId)}::text[], ${rows.map((r) => r.time)}::timestamptz[], ${rows.map((r) => r.recordedAt)}::timestamptz[], ${rows.map((r) => r.action)}::text[], ${rows.map((r) => r.decision)}::text[], ${rows.map((r) => r.hash)}::text[], ${rows.map((r) => r.hash)}::text[], ${rows.map((r) => r.accountId)}::text[], ${rows.map((r) => r.agentId)}::text[])`;
    t = add('insert', t);
  });
  t = add('commit', t);
}
console.log(Object.fromEntries(Object.entries(tot).map(([k, v]) => [k, +(v / 40).toFixed(1)])));
await db.$disconnect();
await rm(dir, { recursive: true, force: true });
