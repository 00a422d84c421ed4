/**
 * The embedded stack's audit log through a crash of everything: the stack as the README starts
 * it (testkit's startStackProcess), a dashboard token from `pag token create`, a burst of 2,000
 * authenticated requests, 50 at a time, and in the middle kill -9 of the whole process tree (the
 * stack and its embedded PostgreSQL, frozen first so that nothing outlives the rest). Restarted on
 * the same DATA_DIR: every request that got an answer has exactly one row (by its X-Request-Id),
 * no request has two, and `pag audit verify` ends with `ok <rows> rows`.
 *
 * Just before the kill, PostgreSQL stalls for STALL_MS (its processes frozen, as on a disk that
 * stops answering): a stack that answered before the row's COMMIT would go on answering then, and
 * every one of those answers would be lost with the kill. Without the stall the loss is a race of a
 * millisecond or two between an answer and its batch's COMMIT, which a test run rarely loses.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from '@jest/globals';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { createPrismaClient } from '../packages/kit/src/mod.ts';
import { auditDatabase } from '../services/audit/src/database.ts';
import { PrismaClient } from '../services/audit/src/generated/prisma/client.ts';
import {
  burst,
  freezeProcessTree,
  killProcessTree,
  lastLine,
  rowProblems,
  rowsPerRequest,
  stackDatabaseUrl,
} from './support/audit-crash.ts';

const REQUESTS = 2_000;
const CONCURRENCY = 50;
const OWNER = { email: 'crash-owner@example.test', password: 'correct horse battery staple' };
const CAPABILITIES = '/api/v1/tokens/me/capabilities';
/**
 * How long PostgreSQL is frozen before the kill: a window in which no answer may come whose row
 * is not committed. A fixed wait, as nothing announces that an answer did not come.
 */
const STALL_MS = 300;

/** The running stack's own database (its superuser, from DATA_DIR/stack.json), as the audit schema's client. */
async function stackDatabase(dataDir: string): Promise<PrismaClient> {
  return createPrismaClient(PrismaClient, {
    databaseUrl: await stackDatabaseUrl(dataDir),
    schema: auditDatabase.schema,
  });
}

test('kill -9 of the whole embedded stack in the middle of 2,000 requests: every answer has its one row', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'pag-crash-'));
  // mkdtemp makes it 0700; run as root, PostgreSQL runs as `postgres` and must get through.
  await chmod(dataDir, 0o755);
  const env = { DATA_DIR: dataDir };
  let stack: StackProcess | undefined;
  try {
    stack = await startStackProcess({ dataDir });
    await lastLine(env, 'owner', 'create', '--email', OWNER.email, '--password', OWNER.password);
    const token = await lastLine(
      env,
      ...['token', 'create', '--owner', OWNER.email, '--name', 'Crash agent', '--scopes', 'read'],
    );
    const running = stack;
    let killed: Promise<number[]> | undefined;
    const result = await burst({
      url: `${running.url}${CAPABILITIES}`,
      headers: { authorization: `Bearer ${token}` },
      total: REQUESTS,
      concurrency: CONCURRENCY,
      onAnswer: (answered) => {
        if (answered !== REQUESTS / 2) return;
        killed = (async () => {
          await freezeProcessTree(running.pid, { below: true });
          await sleep(STALL_MS);
          return killProcessTree(running.pid);
        })();
      },
    });
    // The stack's Node process and at least PostgreSQL's postmaster.
    expect((await killed)?.length).toBeGreaterThanOrEqual(2);
    await running.stop();
    expect(result.answers.length).toBeGreaterThanOrEqual(REQUESTS / 2);
    expect(result.answers.length).toBeLessThan(REQUESTS);
    expect(result.answers.filter((answer) => answer.status !== 200)).toEqual([]);

    stack = await startStackProcess({ dataDir });
    const db = await stackDatabase(dataDir);
    try {
      expect(rowProblems(result.answers, await rowsPerRequest(db))).toEqual([]);
      const [count] = await db.$queryRaw<{ rows: bigint }[]>`SELECT count(*) AS rows FROM audit.records`;
      expect(await lastLine(env, 'audit', 'verify')).toBe(`ok ${Number(count?.rows)} rows`);
    } finally {
      await db.$disconnect();
    }
  } finally {
    await stack?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}, 90_000);
