/**
 * What the audit crash tests share: a burst of requests that notes every answer (its X-Request-Id
 * and status) and lets the test act after the n-th; the audit service as its own process; a kill -9
 * of a whole process tree that leaves nothing running; the rows the log holds per request id; and
 * `pag audit verify`.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Env } from '../../packages/kit/src/mod.ts';
import { runCli } from '../../packages/stack/src/cli/run-cli.ts';
import type { PrismaClient } from '../../services/audit/src/generated/prisma/client.ts';

export interface Answer {
  requestId: string;
  status: number;
  /** The answer's body (JSON), when the burst was asked to keep it. */
  body?: string;
  /** The gateway's own 503: the event could not be recorded, so the request was not answered. */
  unrecorded: boolean;
}

export interface BurstOptions {
  url: string;
  total: number;
  concurrency: number;
  headers?: Record<string, string>;
  /** POSTs this JSON body as the n-th request (from 0) instead of a GET, and keeps each answer's body. */
  post?: (n: number) => unknown;
  /** Called with the count of answers so far, after each one; a burst waits for none of it. */
  onAnswer?: (answered: number) => void;
}

export interface BurstResult {
  answers: Answer[];
  /** Requests that got no answer (the connection failed: the server was gone). */
  failed: number;
}

const UNRECORDED = 'The request could not be recorded in the audit log.';

/** `total` GETs (or POSTs), `concurrency` at a time; a request whose connection fails is counted, not retried. */
export async function burst(options: BurstOptions): Promise<BurstResult> {
  const answers: Answer[] = [];
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < options.total) {
      const n = next;
      next += 1;
      const init: RequestInit =
        options.post === undefined
          ? { headers: options.headers }
          : {
              method: 'POST',
              headers: { ...options.headers, 'content-type': 'application/json' },
              body: JSON.stringify(options.post(n)),
            };
      let response: Response;
      try {
        response = await fetch(options.url, init);
      } catch {
        failed += 1;
        continue;
      }
      const body = await response.text().catch(() => null);
      if (body === null) {
        failed += 1;
        continue;
      }
      const requestId = response.headers.get('x-request-id');
      if (requestId === null) throw new Error(`an answer without X-Request-Id (${response.status}): ${body}`);
      answers.push({
        requestId,
        status: response.status,
        unrecorded: response.status === 503 && body.includes(UNRECORDED),
        ...(options.post === undefined ? {} : { body }),
      });
      options.onAnswer?.(answers.length);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { answers, failed };
}

const AUDIT_MAIN = fileURLToPath(new URL('../../services/audit/src/main.ts', import.meta.url));

export interface ServiceProcess extends AsyncDisposable {
  readonly pid: number;
  /** Sends `signal` (SIGTERM unless given) and resolves once the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `node services/audit/src/main.ts` with `env`, resolved once it printed its ready line (`ready:
 * audit (ops port N)`: no URL, so not testkit's startReadyProcess, which waits for one).
 */
export async function startAuditProcess(env: Env): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [AUDIT_MAIN], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-16_384);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = once(child, 'exit');
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    await readyLine(child, () => output);
  } catch (error) {
    await stop('SIGKILL');
    throw error;
  }
  return { pid: child.pid as number, stop, [Symbol.asyncDispose]: () => stop() };
}

function readyLine(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = () => {
      if (!/^ready: /m.test(output())) return;
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      resolve();
    };
    const onExit = (code: number | null) =>
      reject(new Error(`the audit service exited (${code}) before it was ready:\n${output()}`));
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text.trim().split(/\s+/).filter(Boolean).map(Number);
}

/**
 * Freezes (SIGSTOP) every process below `pid`, and `pid` too unless `below` is set: a frozen
 * process forks nothing more, so the processes listed after each round are all there are. Returns
 * the pids frozen.
 */
export async function freezeProcessTree(pid: number, options: { below?: boolean } = {}): Promise<number[]> {
  const frozen: number[] = [];
  let found = options.below === true ? await childrenOf(pid) : [pid];
  while (found.length > 0) {
    for (const each of found) signal(each, 'SIGSTOP');
    frozen.push(...found);
    found = (await Promise.all(found.map(childrenOf))).flat().filter((child) => !frozen.includes(child));
  }
  return frozen;
}

/**
 * kill -9 of `pid` and every process below it, all at one instant: the whole tree is frozen first,
 * so that none forks a new one or notices the others dying (a PostgreSQL backend outliving its
 * postmaster, a server flushing on its parent's death), then SIGKILL to all of it. Returns the
 * pids killed.
 */
export async function killProcessTree(pid: number): Promise<number[]> {
  const frozen = await freezeProcessTree(pid);
  for (const each of frozen) signal(each, 'SIGKILL');
  return frozen;
}

/** process.kill, but a process that has exited already (ESRCH) is no error: it is gone as wanted. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** How many rows the log holds per request id, request events only (the gateway's). */
export async function rowsPerRequest(db: PrismaClient): Promise<Map<string, number>> {
  const rows = await db.$queryRaw<{ request_id: string; rows: bigint }[]>`
    SELECT request_id, count(*) AS rows FROM audit.records WHERE kind = 'request' GROUP BY request_id`;
  return new Map(rows.map((row) => [row.request_id, Number(row.rows)]));
}

/**
 * What the crash tests assert of the log against the answers: each answered request (the
 * gateway's "could not be recorded" 503 aside) has exactly one row; no request has two (one that
 * got no answer, or only that 503, may have one: its row committed, its answer was lost).
 * Returns the problems found, for one expect() that names them.
 */
export function rowProblems(answers: Answer[], rows: Map<string, number>): string[] {
  const problems: string[] = [];
  for (const answer of answers) {
    if (answer.unrecorded) continue;
    const count = rows.get(answer.requestId) ?? 0;
    if (count !== 1) problems.push(`${answer.requestId} (answered ${answer.status}): ${count} rows`);
  }
  for (const [requestId, count] of rows) if (count > 1) problems.push(`${requestId}: ${count} rows`);
  return problems;
}

/** `pag <argv>` in this process, with `env`; what it printed, line by line, and its exit code. */
export async function pag(env: Env, ...argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const push = (text: string) => lines.push(...text.split('\n'));
  const code = await runCli(argv, { LOG_LEVEL: 'warn', ...env }, { out: push, err: push });
  return { code, lines };
}
