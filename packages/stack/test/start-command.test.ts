/**
 * The README's start command, `scripts/start`: nothing stays resident beside the stack (the pid
 * started is the stack's own Node process, no pnpm or shell in between), and SIGTERM sent to that
 * pid alone, as a service manager sends it, stops everything, PostgreSQL included, with code 0.
 */
import { chmod, mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { isProcessAlive } from '@pag/kit';
import { freePort, startReadyProcess } from '@pag/testkit';

const START = fileURLToPath(new URL('../../../scripts/start', import.meta.url));

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'pag-start-test-'));
  // mkdtemp makes it 0700; run as root, PostgreSQL runs as `postgres` and must get through.
  await chmod(dataDir, 0o755);
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

test('scripts/start becomes the stack itself and stops cleanly on SIGTERM', async () => {
  const stack = await startReadyProcess({
    command: START,
    args: [],
    env: {
      PORT: String(await freePort()),
      OPS_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
  });
  let postmaster: number | undefined;
  try {
    expect((await fetch(`${stack.url}/api/v1/`)).status).toBe(200);
    const stackFile = JSON.parse(await readFile(join(dataDir, 'stack.json'), 'utf8')) as { pid: number };
    // The process that was started is the one serving: the shell replaced itself with Node.
    expect(stackFile.pid).toBe(stack.pid);
    expect(await readlink(`/proc/${stack.pid}/exe`)).toBe(process.execPath);
    const pidFile = await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8');
    postmaster = Number(pidFile.split('\n', 1)[0]);
    expect(isProcessAlive(postmaster)).toBe(true);
  } finally {
    expect(await stack.stop('SIGTERM')).toBe(0);
  }
  expect(isProcessAlive(postmaster)).toBe(false);
}, 60_000);
