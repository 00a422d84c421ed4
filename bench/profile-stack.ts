/**
 * Where the stack's time goes under one load: the scenario of `pnpm bench` against the embedded
 * stack alone, with the stack's Node process under V8's CPU profiler.
 *
 *   pnpm exec node bench/profile-stack.ts introspection|refresh|capabilities|wrong-token|wrong-same|wrong-legacy|context|memory-write|proxy
 *   (BENCH_DURATION, BENCH_CONNECTIONS; PROFILE_MEMORY_ROWS: the owner's entries for `context`,
 *   default 0; PROFILE_RATE: requests/s in all, default as fast as the stack answers. At a fixed
 *   rate the CPU per request compares two versions on a machine busy with other work, where the
 *   throughput does not; PROFILE_SAMPLES=0: no CPU profiler, whose own thread "v8:ProfEvntProc"
 *   and sampling otherwise add to the figures: about 0.2 ms per request at 250/s). `proxy`: the proxied call of `pnpm bench` (bench/proxy-load.ts), the
 *   upstream in a process of its own, not counted. `wrong-token`: the capabilities path with a fresh
 *   forged token per request as `pnpm bench` sends it (our prefix, a wrong tag; `wrong-same`: the
 *   same forgery every time, `wrong-legacy`: a fresh legacy-shaped one), each answered 401 and
 *   counted against a budget of rejected tokens the load never reaches)
 *
 * Prints the load's figures; the CPU time of the stack's main thread, of its other threads and of
 * its PostgreSQL processes, per request; the main thread's involuntary context switches (it was
 * ready to run but the cores were taken); and the main thread's profile samples grouped by the
 * nearest package on the stack (node core for frames of no package: HTTP parsing, sockets). The
 * profile itself is left in the printed directory for a closer look (e.g. Chrome DevTools).
 */
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTEXT_MEMORY_MAX } from '@pag/contracts';
import type { StackProcess } from '@pag/testkit';
import { startStackProcess } from '@pag/testkit';
import { createPrismaClient, sqlPoolOf } from '../packages/kit/src/mod.ts';
import { brainDatabase } from '../services/brain/src/database.ts';
import { PrismaClient } from '../services/brain/src/generated/prisma/client.ts';
import { brainSubject, contextLoad, memoryWriteLoad } from './brain-load.ts';
import type { WrongTokenKind } from './capabilities-load.ts';
import {
  CAPABILITIES_PATH,
  mintStackTokens,
  UNBOUNDED_FAILURES,
  wrongTokenLoad,
} from './capabilities-load.ts';
import type { LoadOptions } from './measure.ts';
import { descendantPids, measure } from './measure.ts';
import { introspectionLoad, refreshChainLoad } from './oauth-load.ts';
import type { OAuthSubject } from './oauth-subject.ts';
import { connectOwner, PROXIED_PATH, proxiedStackEnv, startUpstream, upstreamBody } from './proxy-load.ts';
import { stackAuthUrl, stackIntrospectionClient, stackTokenSource } from './stack-tokens.ts';

const WRONG_TOKENS = { 'wrong-token': 'fresh', 'wrong-same': 'same', 'wrong-legacy': 'legacy' } as const;
const SCENARIOS = [
  'introspection',
  'refresh',
  'capabilities',
  ...(Object.keys(WRONG_TOKENS) as (keyof typeof WRONG_TOKENS)[]),
  'context',
  'memory-write',
  'proxy',
] as const;
const scenario = SCENARIOS.find((name) => name === process.argv[2]);
if (scenario === undefined) throw new Error(`usage: profile-stack.ts ${SCENARIOS.join('|')}`);
/** The kind of wrong token the scenario sends, if it is one of those. */
const wrongKind: WrongTokenKind | undefined = Object.hasOwn(WRONG_TOKENS, scenario)
  ? WRONG_TOKENS[scenario as keyof typeof WRONG_TOKENS]
  : undefined;
const durationSeconds = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TICKS_PER_SECOND = 100;
const BASELINE_SERVER = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));

interface ThreadStat {
  /** The thread's name (`comm`): V8's workers, libuv's pool, a worker thread's own name. */
  name: string;
  ticks: number;
  involuntarySwitches: number;
}

async function threadStats(pid: number): Promise<Map<string, ThreadStat>> {
  const stats = new Map<string, ThreadStat>();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const status = await readFile(`/proc/${pid}/task/${tid}/status`, 'utf8');
    stats.set(tid, {
      name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      ticks: Number(fields[11]) + Number(fields[12]),
      involuntarySwitches: Number(/^nonvoluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0),
    });
  }
  return stats;
}

/** CPU ticks of each process (one that is gone is left out). */
async function ticksOf(pids: number[]): Promise<Map<number, number>> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // Gone meanwhile: its time is lost to the sum.
    }
  }
  return ticks;
}

/**
 * Ticks the processes took between the two readings: a process started meanwhile counts whole, one
 * that ended meanwhile (e.g. the backend that filled the memory) is not subtracted.
 */
function ticksBetween(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, ticks] of after) sum += ticks - (before.get(pid) ?? 0);
  return sum;
}

const sampling = process.env.PROFILE_SAMPLES !== '0';
/** The application name of each PostgreSQL backend of the stack (kit's pools: pag-<schema>). */
async function backendApplications(stack: StackProcess): Promise<Map<number, string>> {
  const { databaseUrl } = JSON.parse(await readFile(join(stack.dataDir, 'stack.json'), 'utf8')) as {
    databaseUrl: string;
  };
  // Any schema's client reads pg_stat_activity; the brain's is at hand as in brain-load.ts.
  const db = createPrismaClient(PrismaClient, { databaseUrl, schema: brainDatabase.schema });
  try {
    const { rows } = await sqlPoolOf(db).query<{ pid: number; application_name: string }>(
      'SELECT pid, application_name FROM pg_stat_activity',
    );
    return new Map(rows.map((row) => [row.pid, row.application_name || '(no name)']));
  } finally {
    await db.$disconnect();
  }
}

/** Ticks between the readings by backend application; a process that is not a backend by name. */
function byApplication(
  before: Map<number, number>,
  after: Map<number, number>,
  names: Map<number, string>,
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const [pid, ticks] of after) {
    const name = names.get(pid) ?? '(other: postmaster, writer, walwriter, gone)';
    sums.set(name, (sums.get(name) ?? 0) + ticks - (before.get(pid) ?? 0));
  }
  return sums;
}

const profileDir = await mkdtemp(join(tmpdir(), 'pag-profile-'));
// The profile's clock starts with the child process: the load's bounds are kept as offsets from
// its spawn, narrowed by half a second on each side for the start-up the offsets do not see.
// The proxied call's upstream runs beside the stack, in a process of its own.
await using upstream = scenario === 'proxy' ? await startUpstream(BASELINE_SERVER) : undefined;
const spawnedAt = Date.now();
const stack = await startStackProcess({
  env: {
    ...(sampling && { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` }),
    ...(upstream && proxiedStackEnv(upstream.server.url)),
    ...(wrongKind && { AUTH_FAILURES_PER_ADDRESS: String(UNBOUNDED_FAILURES) }),
  },
});
let loadStartOffset = 0;
let loadEndOffset = 0;
try {
  const load = await loadOf(stack);
  const postgres = await descendantPids(stack.pid);
  const [threadsBefore, postgresBefore] = [await threadStats(stack.pid), await ticksOf(postgres)];
  loadStartOffset = Date.now() - spawnedAt + 500;
  const rate =
    process.env.PROFILE_RATE === undefined ? {} : { overallRate: Number(process.env.PROFILE_RATE) };
  const result = await measure({ ...load, ...rate, connections, durationSeconds, pids: [] });
  loadEndOffset = Date.now() - spawnedAt - 500;
  const [threads, postgresTicks] = [
    await threadStats(stack.pid),
    await ticksOf(await descendantPids(stack.pid)),
  ];
  const backendNames = await backendApplications(stack);
  const requests = result.requestsPerSecond * durationSeconds;
  const main = threads.get(String(stack.pid));
  const mainBefore = threadsBefore.get(String(stack.pid));
  let otherThreads = 0;
  // The other threads by name: V8's GC and compiler workers ("V8 DefaultWorke"), libuv's pool
  // ("libuv-worker": crypto, fs, dns), worker threads such as a logger's transport.
  const byName = new Map<string, number>();
  for (const [tid, stat] of threads) {
    if (tid === String(stack.pid)) continue;
    const ticks = stat.ticks - (threadsBefore.get(tid)?.ticks ?? 0);
    otherThreads += ticks;
    byName.set(stat.name, (byName.get(stat.name) ?? 0) + ticks);
  }
  const msPerRequest = (ticks: number) => ((1000 * ticks) / TICKS_PER_SECOND / requests).toFixed(3);
  const mainTicks = (main?.ticks ?? 0) - (mainBefore?.ticks ?? 0);
  process.stdout.write(
    [
      `${scenario}: ${Math.round(result.requestsPerSecond)} requests/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, errors ${result.errors}, non-2xx ${result.non2xx}`,
      `CPU ms per request: stack main thread ${msPerRequest(mainTicks)} (busy ${((100 * mainTicks) / TICKS_PER_SECOND / durationSeconds).toFixed(0)}% of the run), its other threads ${msPerRequest(otherThreads)}, PostgreSQL ${msPerRequest(ticksBetween(postgresBefore, postgresTicks))}`,
      `other threads by name, CPU ms per request: ${
        [...byName]
          .filter(([, ticks]) => ticks > 0)
          .sort((a, b) => b[1] - a[1])
          .map(([name, ticks]) => `${name} ${msPerRequest(ticks)}`)
          .join(', ') || 'none'
      }`,
      `PostgreSQL by application (pg_stat_activity), CPU ms per request: ${[
        ...byApplication(postgresBefore, postgresTicks, backendNames),
      ]
        .sort((a, b) => b[1] - a[1])
        .map(([name, ticks]) => `${name} ${msPerRequest(ticks)}`)
        .join(', ')}`,
      `main thread preempted (involuntary context switches): ${(main?.involuntarySwitches ?? 0) - (mainBefore?.involuntarySwitches ?? 0)}`,
    ].join('\n'),
  );
} finally {
  await stack.stop();
}

/** The scenario's load against the stack, its data made first (tokens, the owner's memory). */
async function loadOf(
  stack: StackProcess,
): Promise<Omit<LoadOptions, 'connections' | 'durationSeconds' | 'pids'>> {
  if (scenario === 'context' || scenario === 'memory-write') {
    // Disposed with the process: the subject's database client stays open for the load.
    const subject = await brainSubject(stack);
    if (scenario === 'memory-write') return memoryWriteLoad(subject).load();
    const rows = Number(process.env.PROFILE_MEMORY_ROWS ?? 0);
    if (rows > 0) await subject.fillMemory(rows);
    return (await contextLoad(subject, CONTEXT_MEMORY_MAX)).load();
  }
  if (scenario === 'proxy') {
    const token = await connectOwner(stack);
    const expected = upstreamBody().toString();
    return {
      url: `${stack.url}${PROXIED_PATH}`,
      headers: { authorization: `Bearer ${token}` },
      verifyBody: (text) => text === expected,
    };
  }
  if (scenario === 'capabilities') {
    const [token = ''] = await mintStackTokens(stack, 1);
    return { url: `${stack.url}${CAPABILITIES_PATH}`, headers: { authorization: `Bearer ${token}` } };
  }
  if (wrongKind !== undefined) {
    const [token = ''] = await mintStackTokens(stack, 1);
    return wrongTokenLoad(`${stack.url}${CAPABILITIES_PATH}`, token, wrongKind);
  }
  const subject: OAuthSubject = {
    url: process.env.PROFILE_AT === 'auth' ? await stackAuthUrl(stack.dataDir) : stack.url,
    introspectionClient: await stackIntrospectionClient(stack.dataDir),
    tokens: await stackTokenSource(stack.url),
  };
  const tokens = await subject.tokens(connections);
  return scenario === 'refresh' ? refreshChainLoad(subject, tokens) : introspectionLoad(subject, tokens);
}

if (sampling) await printProfile(profileDir);

/** The main thread's samples during the load: by package, then by our own functions. */
async function printProfile(profileDir: string): Promise<void> {
  const [file] = (await readdir(profileDir)).filter((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no profile written to ${profileDir}`);
  process.stdout.write(
    `\n\nmain thread samples during the load, by nearest package (${join(profileDir, file)}):\n`,
  );
  const profile = JSON.parse(await readFile(join(profileDir, file), 'utf8')) as CpuProfile;
  for (const [name, share] of bySamplePackage(profile)) {
    if (share >= 0.005) process.stdout.write(`${(100 * share).toFixed(1).padStart(5)}%  ${name}\n`);
  }

  process.stdout.write('\nour own functions (services/, packages/) by samples under them (inclusive):\n');
  for (const [name, share] of byOwnFrame(profile).slice(0, 30))
    process.stdout.write(`${(100 * share).toFixed(1).padStart(5)}%  ${name}\n`);
}

interface CpuProfile {
  startTime: number;
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

type ProfileNode = CpuProfile['nodes'][number];

/**
 * The samples taken during the load, each as its stack from the leaf up (the nodes of the
 * sampled frame and of every caller), with how many there are.
 */
function loadStacks(profile: CpuProfile): { stacks: ProfileNode[][]; total: number } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const stacks: ProfileNode[][] = [];
  let time = profile.startTime;
  profile.samples.forEach((id, index) => {
    time += profile.timeDeltas[index] ?? 0;
    const offsetMs = (time - profile.startTime) / 1000;
    if (offsetMs < loadStartOffset || offsetMs > loadEndOffset) return;
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const node = nodes.get(at);
      if (node !== undefined) stack.push(node);
    }
    stacks.push(stack);
  });
  return { stacks, total: stacks.length };
}

/** Each label's share of `total` samples, largest first. */
function shares(counts: Map<string, number>, total: number): [string, number][] {
  return [...counts]
    .map(([name, count]): [string, number] => [name, count / total])
    .sort((a, b) => b[1] - a[1]);
}

/** Share of the samples taken during the load, by the nearest frame that belongs to a package. */
function bySamplePackage(profile: CpuProfile): [string, number][] {
  const { stacks, total } = loadStacks(profile);
  const counts = new Map<string, number>();
  for (const stack of stacks) {
    const leaf = stack[0]?.callFrame.functionName ?? '';
    let label: string | undefined = leaf.startsWith('(') ? leaf : undefined;
    for (const node of stack) {
      if (label !== undefined) break;
      label = packageOf(node.callFrame.url);
    }
    const key = label ?? 'node core';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return shares(counts, total);
}

/**
 * Share of the load's samples spent in (or under) each function of our own code: a closer look
 * than the packages, e.g. which pipeline step or store method costs what.
 */
function byOwnFrame(profile: CpuProfile): [string, number][] {
  const { stacks, total } = loadStacks(profile);
  const counts = new Map<string, number>();
  for (const stack of stacks) {
    const seen = new Set<string>();
    for (const { callFrame: frame } of stack) {
      const own = /\/((?:services|packages)\/.+)$/.exec(frame.url)?.[1];
      if (own === undefined || own.includes('node_modules')) continue;
      seen.add(`${frame.functionName || '(anonymous)'} ${own}:${frame.lineNumber + 1}`);
    }
    for (const key of seen) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return shares(counts, total);
}

function packageOf(url: string): string | undefined {
  const dependency = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency?.[1]) return dependency[1];
  return /\/((?:services|packages)\/[^/]+)\//.exec(url)?.[1];
}
