/**
 * What one audit row costs PostgreSQL: APPENDS appends of BATCH events each (default 1, the batch
 * of a light load) through AuditLog.append, as the service's own role, on a log that the same
 * writer grew to PRELOAD rows first (as a running audit service does). Prints the CPU of each
 * PostgreSQL process that used any (from /proc, so the server must run on this machine) and the WAL
 * (pg_stat_wal) per row, and the size of the table and its indexes (docs/adr/0072).
 * `PRELOAD=20000 APPENDS=1000 pnpm exec node bench/audit-append-cost.ts`
 */
import { readdirSync, readFileSync } from 'node:fs';
import { openAuditLog } from '../services/audit/src/store/open-audit-log.ts';
import { startAuditDatabase } from '../services/audit/test/support/audit-database.ts';
import { requestEvent } from '../services/audit/test/support/events.ts';

const BATCH = Number(process.env.BATCH ?? 1);
const PRELOAD = Number(process.env.PRELOAD ?? 20_000);
const APPENDS = Number(process.env.APPENDS ?? 1_000);
/** /proc counts CPU in clock ticks of 10 ms (USER_HZ 100 on Linux). */
const TICK_MS = 10;

/** CPU (utime + stime) in ms of the postmaster and each of its children, by process title. */
function postgresCpu(postmaster: number): Map<string, number> {
  const cpu = new Map<string, number>();
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    let title: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {
      continue; // the process ended while we listed them
    }
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    if (Number(entry) !== postmaster && Number(fields[1]) !== postmaster) continue;
    cpu.set(title, (cpu.get(title) ?? 0) + (Number(fields[11]) + Number(fields[12])) * TICK_MS);
  }
  return cpu;
}

const database = await startAuditDatabase();
const audit = openAuditLog({ databaseUrl: database.serviceUrl });
const wal = async () => {
  const [row] = await database.owner.$queryRawUnsafe<{ records: bigint; fpi: bigint; bytes: string }[]>(
    'SELECT wal_records AS records, wal_fpi AS fpi, wal_bytes::text AS bytes FROM pg_stat_wal',
  );
  if (row === undefined) throw new Error('pg_stat_wal has no row');
  return row;
};
try {
  // The first append on the empty log, as a new deployment's writer makes it; then the log grows.
  await audit.log.append([requestEvent()]);
  for (let done = 1; done < PRELOAD; done += 500) {
    await audit.log.append(Array.from({ length: Math.min(500, PRELOAD - done) }, () => requestEvent()));
  }
  await database.owner.$executeRawUnsafe('CHECKPOINT');
  const walBefore = await wal();
  const cpuBefore = postgresCpu(database.postgres.pid);
  const started = performance.now();
  for (let i = 0; i < APPENDS; i += 1) {
    await audit.log.append(Array.from({ length: BATCH }, () => requestEvent()));
  }
  const elapsed = performance.now() - started;
  const cpuAfter = postgresCpu(database.postgres.pid);
  const walAfter = await wal();
  const rows = APPENDS * BATCH;
  let total = 0;
  for (const [title, ms] of cpuAfter) {
    const used = ms - (cpuBefore.get(title) ?? 0);
    total += used;
    if (used > 0) console.log(`  ${title.slice(0, 60)}: ${(used / rows).toFixed(3)} ms/row`);
  }
  const per = (after: bigint | string, before: bigint | string) => (Number(after) - Number(before)) / rows;
  console.log(
    `batch ${BATCH}, ${PRELOAD} rows before: PostgreSQL CPU ${(total / rows).toFixed(3)} ms/row, ` +
      `${(elapsed / APPENDS).toFixed(3)} ms/append wall; WAL per row ` +
      `${per(walAfter.records, walBefore.records).toFixed(1)} records, ` +
      `${per(walAfter.fpi, walBefore.fpi).toFixed(2)} full pages, ${per(walAfter.bytes, walBefore.bytes).toFixed(0)} bytes`,
  );
  const sizes = await database.owner.$queryRawUnsafe<{ name: string; kb: number }[]>(
    `SELECT c.relname AS name, (pg_relation_size(c.oid) / 1024)::int AS kb FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'audit' AND c.relkind IN ('r', 'i') AND c.relname LIKE 'records%'`,
  );
  console.log(sizes.map(({ name, kb }) => `${name} ${kb} kB`).join(', '));
} finally {
  await audit.close();
  await database.close();
}
