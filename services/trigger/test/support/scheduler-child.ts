/**
 * A scheduler in its own process, for the crash test: `node scheduler-child.ts` with DATABASE_URL
 * and RUN_LEASE_MS. Its executor writes `claimed <runId>` on stdout for each run it is given and
 * never finishes one, so the test can kill it (SIGKILL, by pid) in the middle of a run.
 */
import { createPrismaClient, MemoryBus, sqlPoolOf } from '@pag/kit';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { startScheduler } from '../../src/scheduler/scheduler.ts';
import { quietLogger, recordingAudit, SETTINGS } from './scheduler-db.ts';

const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl === undefined) throw new Error('DATABASE_URL is required');
const prisma = createPrismaClient(PrismaClient, { databaseUrl, schema: 'trigger' });

startScheduler({
  pool: sqlPoolOf(prisma),
  bus: new MemoryBus(),
  logger: quietLogger,
  audit: recordingAudit().audit,
  settings: {
    ...SETTINGS,
    concurrency: 1,
    runLeaseMs: Number(process.env.RUN_LEASE_MS),
    // The test's due time is the start of the current minute; with SETTINGS' 60 s grace a child
    // that started late in the minute on a loaded machine found it late and planned a catch_up
    // run instead of the scheduled one. An hour, as start-test-trigger.ts gives its services.
    lateGraceMs: 3_600_000,
  },
  executor: (run) => {
    process.stdout.write(`claimed ${run.id}\n`);
    return new Promise(() => undefined);
  },
});
