/**
 * One measurement: autocannon against a URL, plus the peak resident memory of the serving
 * processes (VmHWM of each pid, read from /proc when the run ends).
 */
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';

export interface Measurement {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  peakRssMiB: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  /** Processes whose peak memory is summed into the result. */
  pids: readonly number[];
}

export async function measure(options: LoadOptions): Promise<Measurement> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: options.headers ?? {},
  });
  const peaks = await Promise.all(options.pids.map(peakRssKiB));
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    peakRssMiB: peaks.reduce((sum, kib) => sum + kib, 0) / 1024,
  };
}

/** Peak resident set size of a process in KiB (Linux /proc; 0 when the process is gone). */
export async function peakRssKiB(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    return match?.[1] ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The pids under a process, recursively (e.g. the embedded PostgreSQL and its backends). */
export async function descendantPids(pid: number): Promise<number[]> {
  let text = '';
  try {
    text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  } catch {
    return [];
  }
  const children = text.trim().split(/\s+/).filter(Boolean).map(Number);
  const below = await Promise.all(children.map(descendantPids));
  return [...children, ...below.flat()];
}
