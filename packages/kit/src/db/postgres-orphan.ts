/**
 * Recovery after the owner of an embedded PostgreSQL died without stopping it (SIGKILL, OOM): the
 * server, reparented, still runs on the data directory and its postmaster.pid names it, so a new
 * start would fail with "lock file already exists". Before starting we therefore look at that pid:
 *
 * - no such process: nothing to do; PostgreSQL removes a stale pid file itself;
 * - a zombie (a postmaster killed with its owner, not yet reaped by the process it was reparented
 *   to): the file is removed. PostgreSQL's own check (`kill(pid, 0)`) takes a zombie for a live
 *   server and refuses to start with "lock file already exists"; a zombie holds nothing;
 * - a live postmaster of this data directory, orphaned or started by this very process: shut it
 *   down with SIGINT (fast shutdown: committed data is kept, sessions end) and wait for its exit;
 * - a live postmaster of this directory whose parent is another live Node process: another stack
 *   owns it; refuse rather than pull the database from under it;
 * - a live process that is not that postmaster (the pid was reused after a reboot): the file is
 *   stale but PostgreSQL would refuse it, so it is removed.
 *
 * Processes are read from /proc (Linux). Elsewhere nothing is touched and PostgreSQL's own check
 * decides.
 */
import { readFile, realpath, rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Logger } from '../log/logger.ts';

interface ProcessInfo {
  state: string;
  ppid: number;
  argv: string[];
}

const SHUTDOWN_TIMEOUT_MS = 30_000;
const EXIT_POLL_MS = 25;

export async function stopOrphanedPostgres(dataDir: string, logger?: Logger): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  const content = await readFile(pidFile, 'utf8').catch(() => undefined);
  const pid = Number(content?.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  const info = await readProcess(pid);
  if (info === undefined) return;
  if (info.state === 'Z') {
    // Seen after kill -9 of a whole stack: the reaper (pid 1 here) had not yet collected the
    // postmaster when the stack started again, and PostgreSQL refused the lock file.
    logger?.warn(
      { pid, dataDir },
      'postmaster.pid names an exited process not yet reaped; removing the stale file',
    );
    await rm(pidFile, { force: true });
    return;
  }

  if (!(await isPostmasterOf(info, dataDir))) {
    logger?.warn(
      { pid, dataDir },
      'postmaster.pid names a process that is not this PostgreSQL; removing the stale file',
    );
    await rm(pidFile, { force: true });
    return;
  }
  if (info.ppid !== 1 && info.ppid !== process.pid && (await isLiveNode(info.ppid))) {
    throw new Error(
      `PostgreSQL (pid ${pid}) already runs on ${dataDir}, started by the live process ${info.ppid}: ` +
        'stop that process first, or use another data directory.',
    );
  }
  logger?.warn({ pid, dataDir }, 'stopping PostgreSQL left running by a previous owner');
  process.kill(pid, 'SIGINT');
  await waitForExit(pid, SHUTDOWN_TIMEOUT_MS);
}

/** The process exists and is not a zombie. */
export async function isProcessAlive(pid: number): Promise<boolean> {
  const info = await readProcess(pid);
  return info !== undefined && info.state !== 'Z';
}

/**
 * The pid is not our child, so no exit event exists for it in Node: polling /proc is the only way
 * to learn that it has gone.
 */
async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (await isProcessAlive(pid)) {
    if (Date.now() > deadline) {
      throw new Error(`PostgreSQL (pid ${pid}) did not shut down within ${timeoutMs} ms after SIGINT`);
    }
    await new Promise((done) => setTimeout(done, EXIT_POLL_MS));
  }
}

async function readProcess(pid: number): Promise<ProcessInfo | undefined> {
  try {
    const [stat, cmdline] = await Promise.all([
      readFile(`/proc/${pid}/stat`, 'utf8'),
      readFile(`/proc/${pid}/cmdline`, 'utf8'),
    ]);
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so parse after the last ')'.
    const [state = '', ppid = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid), argv: cmdline.split('\0').filter((arg) => arg !== '') };
  } catch {
    return undefined;
  }
}

/** The postmaster keeps the argv it was spawned with: `.../postgres -D <dataDir> -p <port> ...`. */
async function isPostmasterOf(info: ProcessInfo, dataDir: string): Promise<boolean> {
  if (basename(info.argv[0] ?? '') !== 'postgres') return false;
  const flag = info.argv.indexOf('-D');
  const dir = flag === -1 ? undefined : info.argv[flag + 1];
  if (dir === undefined) return false;
  if (resolve(dir) === resolve(dataDir)) return true;
  const [a, b] = await Promise.all([realpath(dir).catch(() => dir), realpath(dataDir).catch(() => dataDir)]);
  return a === b;
}

async function isLiveNode(pid: number): Promise<boolean> {
  const info = await readProcess(pid);
  return info !== undefined && info.state !== 'Z' && basename(info.argv[0] ?? '').startsWith('node');
}
