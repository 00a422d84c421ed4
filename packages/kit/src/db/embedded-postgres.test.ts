import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { createLogger } from '../log/logger.ts';
import { startTestPostgres } from '../testing/postgres.ts';
import type { EmbeddedPostgres } from './embedded-postgres.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { postgresRunAs } from './postgres-cluster.ts';
import { isProcessAlive } from './postgres-orphan.ts';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A data directory in a fresh temporary directory, removed after the test. */
async function freshDataDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'pag-embedded-'));
  await chmod(root, 0o755); // PostgreSQL runs as `postgres` when tests run as root.
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  return join(root, 'data');
}

async function started(server: Promise<EmbeddedPostgres>): Promise<EmbeddedPostgres> {
  const running = await server;
  cleanups.push(() => running.stop());
  return running;
}

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Another Node process that starts PostgreSQL on `dataDir` and prints its pid and URL, like a stack
 * that will later be killed. Stopped by its own pid.
 */
async function startOwnerProcess(
  dataDir: string,
): Promise<{ owner: ChildProcess; pid: number; url: string }> {
  const moduleUrl = new URL('./embedded-postgres.ts', import.meta.url).href;
  const script = `
    import { startEmbeddedPostgres } from ${JSON.stringify(moduleUrl)};
    const server = await startEmbeddedPostgres({ dataDir: process.argv[1] });
    process.stdout.write(JSON.stringify({ pid: server.pid, url: server.url }) + '\\n');
    setInterval(() => {}, 60_000);`;
  const owner = spawn(process.execPath, ['--input-type=module', '-e', script, dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ownerExited = once(owner, 'exit');
  cleanups.push(async () => {
    if (owner.exitCode === null && owner.signalCode === null) owner.kill('SIGKILL');
    await ownerExited;
  });
  const [line] = (await Promise.race([
    once(owner.stdout!, 'data'),
    ownerExited.then(() => {
      throw new Error('the owner process exited before PostgreSQL started');
    }),
  ])) as [Buffer];
  return { owner, ...(JSON.parse(line.toString()) as { pid: number; url: string }) };
}

describe('startEmbeddedPostgres', () => {
  test('keeps the data across a restart; stop() returns once the server has exited', async () => {
    const dataDir = await freshDataDir();
    const first = await started(startEmbeddedPostgres({ dataDir }));
    expect(first.url).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/pag$/);
    await query(first.url, 'CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ($$kept$$)');

    const stopping = Date.now();
    await first.stop();
    expect(Date.now() - stopping).toBeLessThan(10_000);
    expect(await isProcessAlive(first.pid)).toBe(false);

    const second = await started(startEmbeddedPostgres({ dataDir }));
    expect(second.pid).not.toBe(first.pid);
    expect(await query(second.url, 'SELECT body FROM notes')).toEqual([{ body: 'kept' }]);
  });

  test('refuses a data directory a live owner is using, and takes it over once that owner was SIGKILLed', async () => {
    const dataDir = await freshDataDir();
    const { owner, pid, url } = await startOwnerProcess(dataDir);
    await query(url, 'CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ($$before the crash$$)');

    await expect(startEmbeddedPostgres({ dataDir })).rejects.toThrow(`already runs on ${dataDir}`);

    owner.kill('SIGKILL');
    await once(owner, 'exit');
    expect(await isProcessAlive(pid)).toBe(true); // the orphan still holds the data directory

    const server = await started(startEmbeddedPostgres({ dataDir }));
    expect(await isProcessAlive(pid)).toBe(false);
    expect(server.pid).not.toBe(pid);
    expect(await query(server.url, 'SELECT body FROM notes')).toEqual([{ body: 'before the crash' }]);
  });

  test('starts over a stale postmaster.pid, whether its pid is dead, reused by another process or a zombie', async () => {
    const dataDir = await freshDataDir();
    const first = await startEmbeddedPostgres({ dataDir });
    const pidFile = await readFile(join(dataDir, 'postmaster.pid'), 'utf8');
    await first.stop();
    const withPid = (pid: number) =>
      writeFile(join(dataDir, 'postmaster.pid'), pidFile.replace(/^\d+/, String(pid)));

    const gone = spawn('true');
    await once(gone, 'exit');
    await withPid(gone.pid!);
    const afterDead = await started(startEmbeddedPostgres({ dataDir }));
    await afterDead.stop();

    // Owned by the user PostgreSQL runs as: a process of another user would not stop PostgreSQL anyway.
    const unrelated = spawn('sleep', ['60'], { ...(await postgresRunAs()) });
    cleanups.push(async () => {
      unrelated.kill('SIGKILL');
      await once(unrelated, 'exit');
    });
    await withPid(unrelated.pid!);
    const afterReuse = await started(startEmbeddedPostgres({ dataDir }));
    expect(await query(afterReuse.url, 'SELECT 1 AS up')).toEqual([{ up: 1 }]);
    expect(await isProcessAlive(unrelated.pid!)).toBe(true); // left alone
    await afterReuse.stop();

    // A postmaster killed with its owner stays a zombie until whoever adopted it reaps it; PostgreSQL
    // takes a zombie's pid for a live server. Here the shell's child `sleep 0.3` exits after the
    // shell has exec'd `sleep 60`, which never reaps it (a child exiting before the exec was reaped by
    // bash itself: seen in CI, the pid was gone instead of a zombie).
    const adopter = spawn('bash', ['-c', 'sleep 0.3 & echo $!; exec sleep 60'], {
      ...(await postgresRunAs()),
    });
    cleanups.push(async () => {
      adopter.kill('SIGKILL');
      await once(adopter, 'exit');
    });
    const [printed] = (await once(adopter.stdout!, 'data')) as [Buffer];
    const zombie = Number(printed.toString().trim());
    const stateOf = async () => (await readFile(`/proc/${zombie}/stat`, 'utf8')).split(') ')[1]?.[0];
    while ((await stateOf()) !== 'Z') await new Promise((done) => setTimeout(done, 10));
    await withPid(zombie);
    const afterZombie = await started(startEmbeddedPostgres({ dataDir }));
    expect(await query(afterZombie.url, 'SELECT 1 AS up')).toEqual([{ up: 1 }]);
  });

  test('fails with PostgreSQL’s own reason when the port it was given is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((listening) => blocker.listen(0, '127.0.0.1', listening));
    cleanups.push(() => new Promise((closed) => blocker.close(closed)));
    const { port } = blocker.address() as AddressInfo;

    await expect(startEmbeddedPostgres({ dataDir: await freshDataDir(), port })).rejects.toThrow(
      /did not start on 127\.0\.0\.1:\d+[\s\S]*Address already in use/,
    );
  });

  test('never writes the password to the log, even at debug level', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      service: 'test',
      level: 'debug',
      destination: { write: (line) => lines.push(line) },
    });
    const server = await startEmbeddedPostgres({ dataDir: await freshDataDir(), logger });
    await server.stop();

    const password = decodeURIComponent(new URL(server.url).password);
    expect(password.length).toBeGreaterThanOrEqual(24);
    expect(lines.some((line) => line.includes('ready to accept connections'))).toBe(true);
    expect(lines.filter((line) => line.includes(password))).toEqual([]);
  });
});

describe('startTestPostgres', () => {
  test('gives each caller its own server and directory, and removes the directory on stop', async () => {
    const [a, b] = await Promise.all([startTestPostgres(), startTestPostgres()]);
    cleanups.push(
      () => a.stop(),
      () => b.stop(),
    );
    expect(a.port).not.toBe(b.port);
    expect(a.dataDir).not.toBe(b.dataDir);

    await a.stop();
    expect(await isProcessAlive(a.pid)).toBe(false);
    await expect(access(a.dataDir)).rejects.toThrow();
    expect(await query(b.url, 'SELECT 1 AS up')).toEqual([{ up: 1 }]);
  });
});
