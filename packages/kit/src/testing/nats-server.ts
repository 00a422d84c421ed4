/**
 * Starts a real nats-server (with JetStream) for a test: a free port on loopback, a fresh store
 * directory, optionally a configuration file (users and permissions), ready when the server logs
 * that it is, stopped by its own pid. restart() stops that pid and starts the server again where
 * clients expect it: the same port and the same store, so streams and consumers outlive it. A
 * missing binary fails the test with the install command: bus tests are never skipped.
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
  /** The running server's pid (a new one after restart()). */
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
  /**
   * Ends the server's process with `signal` (SIGTERM: it shuts down cleanly; SIGKILL: a crash),
   * waits for its exit, and starts it again on the same port with the same store directory.
   */
  restart(signal?: NodeJS.Signals): Promise<void>;
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
  const storeDir = await mkdtemp(join(tmpdir(), 'pag-nats-'));
  let running: RunningProcess;
  try {
    running = await spawnServer(port, storeDir, options);
  } catch (error) {
    await rm(storeDir, { recursive: true, force: true });
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await running.end('SIGTERM');
      await rm(storeDir, { recursive: true, force: true });
    })();
    return stopping;
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    get pid() {
      return running.pid;
    },
    storeDir,
    async pause() {
      const { pid } = running;
      process.kill(pid, 'SIGSTOP');
      await eventually(async () => (await processState(pid)) === 'T', {
        what: `nats-server (pid ${pid}) reported stopped`,
      });
    },
    resume: () => process.kill(running.pid, 'SIGCONT'),
    async restart(signal: NodeJS.Signals = 'SIGTERM') {
      if (stopping !== undefined) throw new Error('nats-server was stopped; it cannot be restarted');
      await running.end(signal);
      running = await spawnServer(port, storeDir, options);
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

interface RunningProcess {
  readonly pid: number;
  /** Sends `signal` unless the process has exited already, and resolves once it has. */
  end(signal: NodeJS.Signals): Promise<void>;
}

async function spawnServer(
  port: number,
  storeDir: string,
  options: NatsServerOptions,
): Promise<RunningProcess> {
  const env = options.env ?? process.env;
  const bin = options.bin ?? env.NATS_SERVER_BIN ?? 'nats-server';
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
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    await waitUntilReady(child, log, bin, options.readyTimeoutMs ?? 10_000);
  } catch (error) {
    if (child.pid !== undefined) await end('SIGKILL');
    throw error;
  }
  return { pid: child.pid as number, end };
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
