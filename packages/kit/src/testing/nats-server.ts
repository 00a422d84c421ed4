/**
 * Starts a real nats-server (with JetStream) for a test: a free port on loopback, a fresh store
 * directory, optionally a configuration file (users and permissions), ready when the server logs that it is, stopped by its own pid. A missing binary fails
 * the test with the install command: bus tests are never skipped.
 */

import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../net/free-port.ts';
import { eventually } from './eventually.ts';

export interface NatsServerOptions {
  /** The binary; defaults to env NATS_SERVER_BIN, then `nats-server` on PATH. */
  bin?: string;
  /** A fixed port, e.g. to restart a server where clients expect it; defaults to a free one. */
  port?: number;
  /** How long to wait for "Server is ready" before giving up. */
  readyTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** A configuration file (-c), e.g. deploy/nats/nats-server.conf with its users and permissions. */
  configFile?: string;
  /** Added to the server's environment, e.g. the passwords the configuration file names. */
  serverEnv?: Record<string, string>;
}

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** JetStream's store directory, removed by stop(). */
  readonly storeDir: string;
  /**
   * Freezes the server (SIGSTOP) and resolves once the kernel reports it stopped: a signal is
   * delivered asynchronously, and on a loaded machine the server went on answering a message or
   * two after process.kill returned (seen: a JetStream ack 6 ms after SIGSTOP was sent).
   */
  pause(): Promise<void>;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
  /** Sends SIGTERM to the server's pid, waits for its exit, removes its store directory. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const READY_LINE = 'Server is ready';
const LOG_LINES_KEPT = 40;

/** Tries to start on a free port this often: another test may take the port between pick and bind. */
const PORT_ATTEMPTS = 5;

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await startOn(port, options);
    } catch (error) {
      const taken = error instanceof Error && error.message.includes('address already in use');
      if (!taken || options.port !== undefined || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

async function startOn(port: number, options: NatsServerOptions): Promise<NatsServer> {
  const env = options.env ?? process.env;
  const bin = options.bin ?? env.NATS_SERVER_BIN ?? 'nats-server';
  const storeDir = await mkdtemp(join(tmpdir(), 'pag-nats-'));
  // Flags after -c win over the file: loopback, this port and store, whatever the file says.
  const args = [
    ...(options.configFile === undefined ? [] : ['-c', options.configFile]),
    ...['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir],
  ];
  const child = spawn(bin, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.serverEnv },
  });
  const log: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  try {
    await waitUntilReady(child, log, bin, options.readyTimeoutMs ?? 10_000);
  } catch (error) {
    if (child.exitCode === null && child.pid !== undefined) child.kill('SIGKILL');
    if (child.pid !== undefined) await exited;
    await rm(storeDir, { recursive: true, force: true });
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(storeDir, { recursive: true, force: true });
    })();
    return stopping;
  };
  const pid = child.pid!;
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    pid,
    storeDir,
    async pause() {
      process.kill(pid, 'SIGSTOP');
      await eventually(async () => (await processState(pid)) === 'T', {
        what: `nats-server (pid ${pid}) reported stopped`,
      });
    },
    resume: () => process.kill(pid, 'SIGCONT'),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

function waitUntilReady(child: ChildProcess, log: string[], bin: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new Error(`nats-server did not report ready within ${timeoutMs} ms. Its log:\n${log.join('\n')}`),
      );
    }, timeoutMs);
    const settle = (error?: Error): void => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve();
    };
    let pending = '';
    // The server logs to stderr; both pipes are read to the end so a full pipe never blocks it.
    const onData = (chunk: Buffer): void => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        log.push(line);
        if (log.length > LOG_LINES_KEPT) log.shift();
        if (line.includes(READY_LINE)) settle();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        settle(
          new Error(
            `nats-server binary not found ("${bin}"). Install it with \`apt-get install -y nats-server\` ` +
              'or point NATS_SERVER_BIN at a nats-server binary.',
          ),
        );
      } else {
        settle(error);
      }
    });
    child.once('exit', (code, signal) => {
      settle(
        new Error(
          `nats-server exited before it was ready (code ${code}, signal ${signal}):\n${log.join('\n')}`,
        ),
      );
    });
  });
}

/** The process's state letter in /proc/<pid>/stat (R running, S sleeping, T stopped, …). */
async function processState(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The command name, in parentheses, may hold spaces: the state follows its closing one.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
}
