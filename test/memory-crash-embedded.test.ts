/**
 * Memory notes through a crash of everything: the embedded stack as the README starts it, a
 * dashboard token from `pag token create`, 1,000 POST /api/v1/memory, 50 at a time, and after the
 * 500th answer the memory table locked for STALL_MS (as by a writer that stalls) and then the
 * whole process tree frozen and killed with kill -9 (test/audit-crash-embedded.test.ts does the
 * same for the audit log). Restarted on the same DATA_DIR: every note answered 201 is stored
 * exactly once, as it was answered. The brain writes the notes that arrive together in one commit
 * (kit's GroupCommit, docs/adr/0060) and must answer none before that commit. Only the memory
 * table is locked, not the whole database: the audit log's commit, which every answer waits for,
 * goes on, so a brain that answered before its commit would answer during the lock and lose
 * those notes with the kill (checked: it lost them).
 */
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from '@jest/globals';
import type { MemoryEntry } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { createPrismaClient } from '../packages/kit/src/mod.ts';
import { brainDatabase } from '../services/brain/src/database.ts';
import { PrismaClient } from '../services/brain/src/generated/prisma/client.ts';
import { burst, freezeProcessTree, killProcessTree, pag } from './support/audit-crash.ts';

const REQUESTS = 1_000;
const CONCURRENCY = 50;
const OWNER = { email: 'memory-crash@example.test', password: 'correct horse battery staple' };
/** How long the memory table is locked before the kill: no 201 may come for a note not committed. */
const STALL_MS = 300;

async function brainDb(dataDir: string): Promise<PrismaClient> {
  const { databaseUrl } = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as {
    databaseUrl: string;
  };
  return createPrismaClient(PrismaClient, { databaseUrl, schema: brainDatabase.schema });
}

async function lastLine(env: Record<string, string>, ...argv: string[]): Promise<string> {
  const { code, lines } = await pag(env, ...argv);
  if (code !== 0) throw new Error(`pag ${argv.slice(0, 2).join(' ')} failed (${code}):\n${lines.join('\n')}`);
  return lines.at(-1) ?? '';
}

test('kill -9 of the whole embedded stack in the middle of 1,000 memory writes: every 201 is stored once', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'pag-memory-crash-'));
  // mkdtemp makes it 0700; run as root, PostgreSQL runs as `postgres` and must get through.
  await chmod(dataDir, 0o755);
  const env = { DATA_DIR: dataDir };
  let stack: StackProcess | undefined;
  try {
    stack = await startStackProcess({ dataDir });
    await lastLine(env, 'owner', 'create', '--email', OWNER.email, '--password', OWNER.password);
    const token = await lastLine(
      env,
      ...['token', 'create', '--owner', OWNER.email, '--name', 'Crash writer', '--scopes', 'full'],
    );
    const running = stack;
    const locker = await brainDb(dataDir);
    await locker.$connect();
    let killed: Promise<number[]> | undefined;
    const result = await burst({
      url: `${running.url}/api/v1/memory`,
      headers: { authorization: `Bearer ${token}` },
      total: REQUESTS,
      concurrency: CONCURRENCY,
      post: (n) => ({ content: `crash note ${n}` }),
      onAnswer: (answered) => {
        if (answered !== REQUESTS / 2) return;
        killed = (async () => {
          let pids: number[] = [];
          // The transaction holds the lock until PostgreSQL is killed under it.
          await locker
            .$transaction(
              async (tx) => {
                await tx.$executeRaw`LOCK TABLE brain.memory_entries IN ACCESS EXCLUSIVE MODE`;
                await sleep(STALL_MS);
                await freezeProcessTree(running.pid, { below: true });
                pids = await killProcessTree(running.pid);
              },
              { timeout: 30_000 },
            )
            .catch(() => undefined);
          return pids;
        })();
      },
    });
    expect((await killed)?.length).toBeGreaterThanOrEqual(2);
    await locker.$disconnect().catch(() => undefined);
    await running.stop();
    expect(result.answers.length).toBeGreaterThanOrEqual(REQUESTS / 2);
    expect(result.answers.length).toBeLessThan(REQUESTS);
    expect(result.answers.filter((answer) => answer.status !== 201)).toEqual([]);
    const answered = result.answers.map((answer) => JSON.parse(answer.body ?? '') as MemoryEntry);

    stack = await startStackProcess({ dataDir });
    const db = await brainDb(dataDir);
    try {
      const rows = await db.memoryEntry.findMany({
        where: { id: { in: answered.map((entry) => entry.id) } },
        select: { id: true, content: true, createdAt: true },
      });
      const stored = new Map(rows.map((row) => [row.id, row]));
      const missing = answered.filter((entry) => stored.get(entry.id)?.content !== entry.content);
      expect(missing).toEqual([]);
      // One row per note: no content is stored twice.
      const [twice] = await db.$queryRaw<{ n: bigint }[]>`
        SELECT count(*) AS n FROM (SELECT content FROM brain.memory_entries GROUP BY content HAVING count(*) > 1) d`;
      expect(Number(twice?.n)).toBe(0);
    } finally {
      await db.$disconnect();
    }
  } finally {
    await stack?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}, 90_000);
