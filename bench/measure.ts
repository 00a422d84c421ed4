/**
 * One measurement: autocannon against a URL, plus what the serving processes used: their peak
 * resident memory (VmHWM of each pid, read from /proc when the run ends) and their CPU time, and
 * the CPU time that other processes on the machine took meanwhile (a benchmark sharing its cores
 * with anything else measures less than the code can do). A response whose body fails the
 * scenario's check counts as an error, so a 200 that says the wrong thing is not a success.
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
  /** CPU time of the serving processes, in % of one core, averaged over the run. */
  serverCpuPercent: number;
  /** CPU time of every process but the servers and this one, in % of the machine's capacity. */
  otherCpuPercent: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  headers?: Record<string, string>;
  /**
   * Each connection's own requests, by its index (0 … connections - 1): state that must follow
   * one connection, such as a chain of rotating refresh tokens, lives in their closures.
   */
  connectionRequests?: (index: number) => autocannon.Request[];
  /** Requests per second across all connections; unset: as fast as the server answers. */
  overallRate?: number;
  /** Whether a response body is the expected answer; a false counts in `errors`. */
  verifyBody?: (body: string) => boolean;
  /**
   * The serving processes; a function is asked before and after the run (PostgreSQL may start
   * backends while it runs). Their peak memory is summed into the result.
   */
  pids: readonly number[] | (() => Promise<readonly number[]>);
}

export async function measure(options: LoadOptions): Promise<Measurement> {
  const { connectionRequests, verifyBody } = options;
  const servingPids = async () => (typeof options.pids === 'function' ? options.pids() : options.pids);
  const serversBefore = await cpuTicksOf(await servingPids());
  const selfBefore = await cpuTicks(process.pid);
  const machineBefore = await machineTicks();
  let connection = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    headers: options.headers ?? {},
    ...(options.overallRate !== undefined && { overallRate: options.overallRate }),
    // Per-connection state cannot live in autocannon's request `context`: with a single request
    // per connection, RequestIterator.nextRequest (lib/requestIterator.js) resets the context to
    // a deep clone of initialContext every time the list wraps, i.e. before every request. So each
    // client gets its own request objects (Client.setRequests, autocannon's documented API),
    // called once per connection in creation order.
    ...(connectionRequests && {
      setupClient: (client: autocannon.Client) => client.setRequests(connectionRequests(connection++)),
    }),
    ...(verifyBody && { verifyBody: (body: unknown) => verifyBody(String(body)) }),
  });
  const machine = await machineTicks();
  const pids = await servingPids();
  const servers = await cpuTicksOf(pids);
  const serverTicks = [...servers].reduce(
    (sum, [pid, ticks]) => sum + ticks - (serversBefore.get(pid) ?? 0),
    0,
  );
  const selfTicks = (await cpuTicks(process.pid)) - selfBefore;
  const elapsed = machine.total - machineBefore.total;
  const wall = machine.uptime - machineBefore.uptime;
  const peaks = await Promise.all(pids.map(peakRssKiB));
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts + result.mismatches,
    non2xx: result.non2xx,
    peakRssMiB: peaks.reduce((sum, kib) => sum + kib, 0) / 1024,
    serverCpuPercent: wall > 0 ? (100 * serverTicks) / wall : 0,
    otherCpuPercent:
      elapsed > 0
        ? Math.max(0, (100 * (machine.busy - machineBefore.busy - serverTicks - selfTicks)) / elapsed)
        : 0,
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

/** User + system CPU time of a process (all its threads) in clock ticks; 0 when it is gone. */
async function cpuTicks(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may contain spaces: state is [0], utime [11], stime [12].
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

async function cpuTicksOf(pids: readonly number[]): Promise<Map<number, number>> {
  return new Map(await Promise.all(pids.map(async (pid) => [pid, await cpuTicks(pid)] as const)));
}

/**
 * The machine's CPU time in clock ticks (/proc/stat, summed over cores): all of it and the busy
 * part (everything but idle and iowait); and wall time in the same ticks (/proc/uptime × USER_HZ,
 * which is 100 wherever /proc reports times).
 */
async function machineTicks(): Promise<{ total: number; busy: number; uptime: number }> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const uptime = Number((await readFile('/proc/uptime', 'utf8')).split(' ')[0]) * 100;
  const busy = user + nice + system + irq + softirq + steal;
  return { total: busy + idle + iowait, busy, uptime };
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
