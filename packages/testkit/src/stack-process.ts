/**
 * Starts the embedded stack as a child process on a free port with its own DATA_DIR, the way the
 * README starts it: `scripts/start`, which execs Node, so the pid held here is the stack's own.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@pag/kit/testing';
import type { ReadyProcess } from './ready-process.ts';
import { startReadyProcess } from './ready-process.ts';

// The README's start command, at the root of the workspace this package lives in.
const START_COMMAND = fileURLToPath(new URL('../../../scripts/start', import.meta.url));

export interface StackProcess extends ReadyProcess {
  readonly dataDir: string;
  /** Stops the process and removes its DATA_DIR unless it was given by the caller. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StackProcessOptions {
  /** Reuse a data directory (e.g. to restart on the same data); a fresh tmp dir otherwise. */
  dataDir?: string;
  port?: number;
  env?: Record<string, string | undefined>;
}

export async function startStackProcess(options: StackProcessOptions = {}): Promise<StackProcess> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'pag-stack-')));
  // mkdtemp makes it 0700; run as root, PostgreSQL runs as `postgres` and must get through.
  if (ownDataDir) await chmod(dataDir, 0o755);
  const port = options.port ?? (await freePort());
  let running: ReadyProcess;
  try {
    running = await startReadyProcess({
      command: START_COMMAND,
      args: [],
      env: {
        PORT: String(port),
        OPS_PORT: String(await freePort()),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        ...options.env,
      },
    });
  } catch (error) {
    if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const stop = async (signal?: NodeJS.Signals) => {
    const code = await running.stop(signal);
    if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    return code;
  };
  return {
    ...running,
    dataDir,
    stop,
    [Symbol.asyncDispose]: async () => {
      await stop();
    },
  };
}
