import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from '@jest/globals';
import { freePort } from '../net/free-port.ts';
import { eventually } from '../testing/eventually.ts';

const FIXTURE = fileURLToPath(new URL('./slow-start.fixture.ts', import.meta.url));
let child: ChildProcess | undefined;

afterEach(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
});

test('readiness stays 503 until the service has started, then 200 until SIGTERM', async () => {
  const opsPort = await freePort();
  const started = spawn(process.execPath, [FIXTURE], {
    // The in-memory bus (no NATS_URL): connected from the start.
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('NATS_'))),
      OPS_PORT: String(opsPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child = started;
  const readyz = `http://127.0.0.1:${opsPort}/readyz`;
  // The ops listener answers before the service has started.
  const early = await eventually(() => fetch(readyz), {
    what: 'the ops listener answers',
    timeoutMs: 20_000,
  });
  expect(early.status).toBe(503);
  expect(await early.json()).toMatchObject({ checks: { start: 'starting' } });

  let stdout = '';
  const readyLine = new Promise<void>((resolve) =>
    started.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('ready:')) resolve();
    }),
  );
  started.kill('SIGUSR2');
  await readyLine;
  expect((await fetch(readyz)).status).toBe(200);

  const exited = once(started, 'exit');
  started.kill('SIGTERM');
  expect((await exited)[0]).toBe(0);
});
