/**
 * Runs a program as a child process until it prints `ready: <url>`, the line our entry points
 * print once they serve, and stops it by the pid it got (SIGTERM, then waiting for its exit).
 */

import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';

export interface ReadyProcess extends AsyncDisposable {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Everything the process printed on stdout so far. */
  output(): string;
  /** The last 16 KiB the process printed on stderr. */
  errorOutput(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ReadyProcessOptions {
  /** The program to run; this process's own Node (its real binary) unless given. */
  command?: string;
  args: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** Starts `<command> <args>` (`node <args>` by default) and resolves once it printed its ready line. */
export async function startReadyProcess(options: ReadyProcessOptions): Promise<ReadyProcess> {
  const child = spawn(options.command ?? process.execPath, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let errorOutput = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  // Kept for the failure message; a long-running child's stderr would otherwise fill the pipe.
  child.stderr?.on('data', (chunk: Buffer) => {
    errorOutput = (errorOutput + chunk.toString()).slice(-16_384);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /^ready: (\S+)$/m.exec(output);
      if (match?.[1]) {
        child.stdout?.off('data', onData);
        child.off('exit', onExit);
        child.off('error', reject);
        resolve(match[1]);
      }
    };
    const onExit = (code: number | null) =>
      reject(new Error(`process exited (${code}) before ready:\n${output}${errorOutput}`));
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    // A program that cannot be started (missing, not executable) emits 'error' and no 'exit'.
    child.once('error', reject);
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    return exited;
  };
  return {
    url,
    pid: child.pid as number,
    child,
    output: () => output,
    errorOutput: () => errorOutput,
    stop,
    [Symbol.asyncDispose]: async () => {
      await stop();
    },
  };
}
