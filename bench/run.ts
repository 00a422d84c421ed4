/**
 * `pnpm bench`: load scenarios against the embedded stack on loopback, each beside a baseline
 * measured in the same run, written to docs/benchmarks.md.
 *
 * BENCH_DURATION (seconds per measurement, default 10) and BENCH_CONNECTIONS (default 50).
 */

import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReadyProcess, startStackProcess } from '@pag/testkit';
import type { LoadOptions, Measurement } from './measure.ts';
import { descendantPids, measure } from './measure.ts';
import { introspectionLoad, refreshChainLoad } from './oauth-load.ts';
import type { BareOAuthSetup, OAuthSubject, TokenPair } from './oauth-subject.ts';
import { stackIntrospectionClient, stackTokenSource } from './stack-tokens.ts';

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BASELINE_SERVER = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));
const BARE_OIDC_SERVER = fileURLToPath(new URL('./bare-oidc-server.ts', import.meta.url));
const REPORT = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const PROFILE_NOTES = fileURLToPath(new URL('./profile-notes.md', import.meta.url));
/** The target for introspection through the stack on this machine. */
const INTROSPECTION_TARGET = 2_000;
const INTROSPECTION = 'POST /oauth/introspect (introspection, RFC 7662)';
const REFRESH = 'POST /oauth/token (token endpoint, refresh grant)';

interface Measured {
  subject: string;
  result: Measurement;
}

interface Scenario {
  name: string;
  measured: Measured;
  baseline: Measured;
}

type Load = Omit<LoadOptions, 'connections' | 'durationSeconds' | 'pids'>;

/** `load` is made once for the warm-up and once for the measurement (e.g. fresh tokens each). */
async function warmUpAndMeasure(load: () => Load | Promise<Load>, pids: () => Promise<number[]>) {
  const warmUp = Math.min(2, durationSeconds);
  await measure({ ...(await load()), connections, durationSeconds: warmUp, pids: [] });
  return measure({ ...(await load()), connections, durationSeconds, pids });
}

/** The stack's Node process and its embedded PostgreSQL (the server and its backends). */
const stackPids = (pid: number) => async () => [pid, ...(await descendantPids(pid))];

async function discoveryIndexScenario(): Promise<Scenario> {
  await using stack = await startStackProcess();
  const path = '/api/v1/';
  const body = Buffer.from(await (await fetch(`${stack.url}${path}`)).arrayBuffer());
  const dir = await mkdtemp(join(tmpdir(), 'pag-bench-'));
  try {
    await writeFile(join(dir, 'body.json'), body);
    await using baseline = await startReadyProcess({ args: [BASELINE_SERVER, join(dir, 'body.json')] });
    const gateway = await warmUpAndMeasure(() => ({ url: `${stack.url}${path}` }), stackPids(stack.pid));
    const bare = await warmUpAndMeasure(
      () => ({ url: `${baseline.url}${path}` }),
      async () => [baseline.pid],
    );
    return {
      name: `GET ${path} (discovery index, ${body.length} bytes)`,
      measured: { subject: 'gateway (embedded stack)', result: gateway },
      baseline: { subject: 'baseline: bare node:http, same body', result: bare },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function startBareOAuth() {
  const bare = await startReadyProcess({ args: [BARE_OIDC_SERVER] });
  const setupLine = /^bench: (.+)$/m.exec(bare.output())?.[1];
  if (setupLine === undefined) {
    await bare.stop();
    throw new Error(`bare oidc-provider printed no setup line:\n${bare.output()}`);
  }
  const subject: OAuthSubject = {
    url: bare.url,
    ...(JSON.parse(setupLine) as BareOAuthSetup),
    tokens: async (count) => {
      const response = await fetch(`${bare.url}/bench/tokens?count=${count}`, { method: 'POST' });
      if (!response.ok) throw new Error(`bare oidc-provider minted no tokens (${response.status})`);
      return (await response.json()) as TokenPair[];
    },
  };
  return { process: bare, subject };
}

/**
 * Introspection and the refresh grant through the gateway's public URL, beside a bare
 * oidc-provider. Every run (warm-up or measurement) gets fresh tokens: a warm-up ends with
 * requests in flight, whose rotated refresh tokens are lost with their answers.
 */
async function oauthScenarios(): Promise<Scenario[]> {
  await using stack = await startStackProcess();
  const stackSubject: OAuthSubject = {
    url: stack.url,
    introspectionClient: await stackIntrospectionClient(stack.dataDir),
    tokens: await stackTokenSource(stack.url),
  };
  const bare = await startBareOAuth();
  await using _bare = bare.process;
  const barePids = async () => [bare.process.pid];

  const introspection = (subject: OAuthSubject, pids: () => Promise<number[]>) =>
    warmUpAndMeasure(async () => introspectionLoad(subject, await subject.tokens(connections)), pids);
  const refresh = (subject: OAuthSubject, pids: () => Promise<number[]>) =>
    warmUpAndMeasure(async () => refreshChainLoad(subject, await subject.tokens(connections)), pids);
  const stackIntrospection = await introspection(stackSubject, stackPids(stack.pid));
  const bareIntrospection = await introspection(bare.subject, barePids);
  const stackRefresh = await refresh(stackSubject, stackPids(stack.pid));
  const bareRefresh = await refresh(bare.subject, barePids);
  const stackLabel = 'auth service through the gateway (embedded stack)';
  const bareLabel = 'baseline: bare oidc-provider, in-memory adapter';
  return [
    {
      name: INTROSPECTION,
      measured: { subject: stackLabel, result: stackIntrospection },
      baseline: { subject: bareLabel, result: bareIntrospection },
    },
    {
      name: REFRESH,
      measured: { subject: stackLabel, result: stackRefresh },
      baseline: { subject: bareLabel, result: bareRefresh },
    },
  ];
}

function table(scenarios: Scenario[]): string {
  const header = [
    '| scenario | measured | requests/s | p50 ms | p99 ms | errors / non-2xx | peak RSS MiB | server CPU % | other CPU % |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const row = (name: string, { subject, result: r }: Measured) =>
    `| ${name} | ${subject} | ${Math.round(r.requestsPerSecond)} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} / ${r.non2xx} | ${r.peakRssMiB.toFixed(0)} | ${r.serverCpuPercent.toFixed(0)} | ${r.otherCpuPercent.toFixed(0)} |`;
  const lines = scenarios.flatMap((s) => [row(s.name, s.measured), row(s.name, s.baseline)]);
  return [...header, ...lines].join('\n');
}

const ratio = (a: number, b: number) => (b === 0 ? '–' : (a / b).toFixed(2));

function ratios(scenarios: Scenario[]): string {
  const header = '| scenario | requests/s | p50 | p99 |\n|---|---:|---:|---:|';
  const lines = scenarios.map(({ name, measured: { result: m }, baseline: { result: b } }) => {
    const cells = [
      ratio(m.requestsPerSecond, b.requestsPerSecond),
      ratio(m.p50Ms, b.p50Ms),
      ratio(m.p99Ms, b.p99Ms),
    ];
    return `| ${name} | ${cells.join(' | ')} |`;
  });
  return [header, ...lines].join('\n');
}

function target(scenarios: Scenario[]): string {
  const measured = scenarios.find((s) => s.name === INTROSPECTION)?.measured.result.requestsPerSecond ?? 0;
  const verdict = measured >= INTROSPECTION_TARGET ? 'met' : 'NOT met';
  return `Target: introspection through the stack at least ${INTROSPECTION_TARGET} requests/s on this machine: ${verdict} (${Math.round(measured)} requests/s).`;
}

/** Which code was measured: the commit, and whether the work tree differed from it. */
function revision(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown (not a git work tree)';
  }
}

const scenarios = [await discoveryIndexScenario(), ...(await oauthScenarios())];
const cpu = cpus();
const machine = `${cpu.length} cores (${cpu[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}`;
const report = `# Benchmarks

Written by \`pnpm bench\` (bench/run.ts); do not edit by hand. Each scenario runs against the
embedded stack started as \`pnpm start\` runs it, on loopback, beside a baseline measured in the
same run. Load: autocannon in the bench process (on the same cores as the servers),
${connections} connections, ${durationSeconds} s after a warm-up.
Peak RSS is the peak resident memory (VmHWM) of the serving processes since they started: for
the stack, the Node process plus its embedded PostgreSQL processes (their shared buffers are
counted in each, so the sum overstates the real total). Server CPU is the CPU time of those
processes in % of one core (200 = both cores); other CPU is what every other process on the
machine took meanwhile, in % of the whole machine: above a few %, the figures of that row are
low by about that much. Errors count failed connections, timeouts and 2xx answers whose body is
not the expected one.

The OAuth scenarios go through the gateway's public URL to the auth service (oidc-provider on
PostgreSQL); the baseline is oidc-provider alone, in its own process (bench/bare-oidc-server.ts:
its default in-memory adapter, on a store larger than the default 1,000 entries).
Introspection: each connection asks about its own access token as our resource servers do
(client_secret_basic, \`token_type_hint=access_token\`), and every answer must be
\`"active":true\`. Refresh grant: each connection holds its own refresh token, from its own client
and grant, and sends the rotated one from each answer with its next request; a refresh token is
accepted once, so one lost or refused answer breaks that chain (non-2xx from then on). Each run
gets fresh tokens. The stack's come from the real flow (registration, login and consent pages,
code exchange); the baseline mints its own through oidc-provider's models. Profile:
\`pnpm exec node bench/profile-stack.ts introspection|refresh\`.

Command: \`BENCH_DURATION=${durationSeconds} BENCH_CONNECTIONS=${connections} pnpm bench\`
Run: ${new Date().toISOString()} · commit ${revision()} · Node ${process.version} · ${machine}

${table(scenarios)}

Stack ÷ baseline (requests/s: below 1 is slower; latencies: above 1 is slower):

${ratios(scenarios)}

${target(scenarios)}

${(await readFile(PROFILE_NOTES, 'utf8')).trim()}
`;
await writeFile(REPORT, report);
process.stdout.write(
  `${table(scenarios)}\n\n${ratios(scenarios)}\n\n${target(scenarios)}\n\nwritten to docs/benchmarks.md\n`,
);
