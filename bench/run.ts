/**
 * `pnpm bench`: load scenarios against the embedded stack on loopback, each beside a baseline
 * measured in the same run, written to docs/benchmarks.md.
 *
 * BENCH_DURATION (seconds per measurement, default 10) and BENCH_CONNECTIONS (default 50).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReadyProcess, startStackProcess } from '@pag/testkit';
import type { Measurement } from './measure.ts';
import { descendantPids, measure } from './measure.ts';

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BASELINE_SERVER = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));
const REPORT = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));

interface Row {
  scenario: string;
  subject: string;
  result: Measurement;
}

async function warmUpAndMeasure(url: string, pids: number[]): Promise<Measurement> {
  await measure({ url, connections, durationSeconds: Math.min(2, durationSeconds), pids: [] });
  return measure({ url, connections, durationSeconds, pids });
}

async function discoveryIndexScenario(): Promise<Row[]> {
  await using stack = await startStackProcess();
  const path = '/api/v1/';
  const body = Buffer.from(await (await fetch(`${stack.url}${path}`)).arrayBuffer());
  const dir = await mkdtemp(join(tmpdir(), 'pag-bench-'));
  try {
    await writeFile(join(dir, 'body.json'), body);
    await using baseline = await startReadyProcess({ args: [BASELINE_SERVER, join(dir, 'body.json')] });
    const scenario = `GET ${path} (discovery index, ${body.length} bytes)`;
    const stackPids = [stack.pid, ...(await descendantPids(stack.pid))];
    const gateway = await warmUpAndMeasure(`${stack.url}${path}`, stackPids);
    const bare = await warmUpAndMeasure(`${baseline.url}${path}`, [baseline.pid]);
    return [
      { scenario, subject: 'gateway (embedded stack)', result: gateway },
      { scenario, subject: 'baseline: bare node:http, same body', result: bare },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function table(rows: Row[]): string {
  const header =
    '| scenario | measured | requests/s | p50 ms | p99 ms | errors / non-2xx | peak RSS MiB |\n|---|---|---:|---:|---:|---:|---:|';
  const lines = rows.map(
    ({ scenario, subject, result: r }) =>
      `| ${scenario} | ${subject} | ${Math.round(r.requestsPerSecond)} | ${r.p50Ms} | ${r.p99Ms} | ${r.errors} / ${r.non2xx} | ${r.peakRssMiB.toFixed(0)} |`,
  );
  return [header, ...lines].join('\n');
}

const rows = [...(await discoveryIndexScenario())];
const report = `# Benchmarks

Written by \`pnpm bench\` (bench/run.ts); do not edit by hand. Each scenario runs against the
embedded stack started as \`pnpm start\` runs it, on loopback, beside a baseline measured in the
same run. Load: autocannon, ${connections} connections, ${durationSeconds} s after a warm-up.
Peak RSS is the peak resident memory (VmHWM) of the serving processes: for the stack, the Node
process plus its embedded PostgreSQL processes (their shared buffers are counted in each, so the
sum overstates the real total).

Run: ${new Date().toISOString()} · Node ${process.version} · ${cpus().length} cores

${table(rows)}
`;
await writeFile(REPORT, report);
process.stdout.write(`${table(rows)}\n\nwritten to docs/benchmarks.md\n`);
