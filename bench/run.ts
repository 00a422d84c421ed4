/**
 * `pnpm bench`: load scenarios against the embedded stack on loopback, each beside a baseline
 * measured in the same run, written to docs/benchmarks.md.
 *
 * BENCH_DURATION (seconds per measurement, default 10) and BENCH_CONNECTIONS (default 50).
 * BENCH_ONLY=discovery|oauth|capabilities|context|memory-write|memory|audit|proxy (comma-separated) runs only those scenarios and
 * prints their rows without writing docs/benchmarks.md (which always holds a full run).
 * BENCH_SETTLE_SECONDS (default 5): how long the memory scenario lets a process idle before sampling.
 * BENCH_CONTEXT_PAIRS (default 5): pairs of alternating rounds of the context, empty and full (docs/adr/0077).
 */

import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as idle } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CONTEXT_MEMORY_MAX } from '@pag/contracts';
import { startReadyProcess, startStackProcess } from '@pag/testkit';
import type { IngestResult } from './audit-ingest.ts';
import { BATCH_SIZE, measureIngest } from './audit-ingest.ts';
import type { BrainSubject } from './brain-load.ts';
import {
  brainSubject,
  CONTEXT_PATH,
  contextLoad,
  FULL_MEMORY_ROWS,
  FULL_OWNER,
  MEMORY_PATH,
  memoryWriteLoad,
} from './brain-load.ts';
import type { WrongTokenKind } from './capabilities-load.ts';
import {
  CAPABILITIES_PATH,
  mintStackTokens,
  STORED_TOKENS,
  startSameBodyServer,
  UNBOUNDED_FAILURES,
  wrongTokenLoad,
} from './capabilities-load.ts';
import type { LoadOptions, Measurement } from './measure.ts';
import { descendantPids, measure } from './measure.ts';
import type { MemorySample } from './memory.ts';
import { aloneKiB, sampleMemory, totalPssKiB } from './memory.ts';
import { nginxBinary, startNginx } from './nginx.ts';
import { introspectionLoad, refreshChainLoad } from './oauth-load.ts';
import type { BareOAuthSetup, OAuthSubject, TokenPair } from './oauth-subject.ts';
import {
  PROXIED_PATH,
  proxiedAuditRows,
  proxiedSubject,
  startExpressForwarder,
  startNodeForwarder,
  UPSTREAM_PATH,
} from './proxy-load.ts';
import { stackAuditRows } from './stack-audit.ts';
import { stackAuthUrl, stackIntrospectionClient, stackTokenSource } from './stack-tokens.ts';

const durationSeconds = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BASELINE_SERVER = fileURLToPath(new URL('./baseline-server.ts', import.meta.url));
const BARE_OIDC_SERVER = fileURLToPath(new URL('./bare-oidc-server.ts', import.meta.url));
const BARE_POSTGRES = fileURLToPath(new URL('./bare-postgres.ts', import.meta.url));
const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 5);
/** The issue's target for the whole embedded stack, idle, PostgreSQL included, as PSS (MB = 10⁶ bytes). */
const MEMORY_TARGET_MB = 250;
const REPORT = fileURLToPath(new URL('../docs/benchmarks.md', import.meta.url));
const PROFILE_NOTES = fileURLToPath(new URL('./profile-notes.md', import.meta.url));
/** The issue's target for introspection on this machine. */
const INTROSPECTION_TARGET = 2_000;
const INTROSPECTION = 'POST /oauth/introspect (introspection, RFC 7662)';
const INTROSPECTION_DATABASE = 'POST /oauth/introspect, every answer read from PostgreSQL';
const INTROSPECTION_GATEWAY = 'POST /oauth/introspect through the public gateway';
const REFRESH = 'POST /oauth/token (token endpoint, refresh grant)';
const CAPABILITIES = `GET ${CAPABILITIES_PATH} (authenticated, whole pipeline)`;
const WRONG_SAME = `GET ${CAPABILITIES_PATH}, the same forged token (401)`;
const WRONG_FRESH = `GET ${CAPABILITIES_PATH}, a fresh forged token each request: our prefix, wrong tag (401)`;
const WRONG_LEGACY = `GET ${CAPABILITIES_PATH}, a fresh legacy-shaped random token each request (401)`;
/** The issue's targets for an authenticated request through the gateway, audit included. */
const CAPABILITIES_TARGET = { requestsPerSecond: 3_000, p99Ms: 25 };
/**
 * The authenticated request before issue 11 (docs/benchmarks.md at 7b78cb7, commit 8703aab measured),
 * when nothing kept the audit events; the issue's target with every event persisted is 90 % of it.
 */
const CAPABILITIES_BEFORE_AUDIT = { requestsPerSecond: 3_569, commit: '8703aab', share: 0.9 };
/** Issue 12's targets: the context and the memory write, requests/s each; the context's spread over its memory. */
const BRAIN_TARGET = { requestsPerSecond: 2_000, contextSpread: 0.1 };
const CONTEXT_EMPTY = `GET ${CONTEXT_PATH}, empty memory (whole pipeline, brain)`;
const CONTEXT_FULL = `GET ${CONTEXT_PATH}, ${FULL_MEMORY_ROWS} memory entries of the owner`;
const MEMORY_WRITE = `POST ${MEMORY_PATH} (whole pipeline, brain, one row each)`;
/** The issue's targets for the audit log's ingest on this machine: events/s, and × the plain INSERT's. */
const INGEST_TARGET = { eventsPerSecond: 5_000, ofPlain: 0.5 };
const only = new Set(
  (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean),
);
const runs = (name: string) => only.size === 0 || only.has(name);

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
 * Introspection where resource servers ask (the auth service's internal URL), through the public
 * gateway, and with every answer read from PostgreSQL; the refresh grant through the gateway's
 * public URL (where clients redeem). Each beside a bare oidc-provider. Every run (warm-up or
 * measurement) gets fresh tokens: a warm-up ends with requests in flight, whose rotated refresh
 * tokens are lost with their answers.
 */
async function oauthScenarios(): Promise<Scenario[]> {
  await using stack = await startStackProcess();
  const viaGateway: OAuthSubject = {
    url: stack.url,
    introspectionClient: await stackIntrospectionClient(stack.dataDir),
    tokens: await stackTokenSource(stack.url),
  };
  const atAuth: OAuthSubject = { ...viaGateway, url: await stackAuthUrl(stack.dataDir) };
  const bare = await startBareOAuth();
  await using _bare = bare.process;
  const barePids = async () => [bare.process.pid];

  const introspection = (subject: OAuthSubject, pids: () => Promise<number[]>) =>
    warmUpAndMeasure(async () => introspectionLoad(subject, await subject.tokens(connections)), pids);
  const refresh = (subject: OAuthSubject, pids: () => Promise<number[]>) =>
    warmUpAndMeasure(async () => refreshChainLoad(subject, await subject.tokens(connections)), pids);
  const stackIntrospection = await introspection(atAuth, stackPids(stack.pid));
  const gatewayIntrospection = await introspection(viaGateway, stackPids(stack.pid));
  const bareIntrospection = await introspection(bare.subject, barePids);
  const stackRefresh = await refresh(viaGateway, stackPids(stack.pid));
  const bareRefresh = await refresh(bare.subject, barePids);

  // The same with nothing answered from memory: each introspection reads its token from PostgreSQL.
  await using fromDatabase = await startStackProcess({ env: { TOKEN_READ_CACHE_MS: '0' } });
  const databaseIntrospection = await introspection(
    {
      url: await stackAuthUrl(fromDatabase.dataDir),
      introspectionClient: await stackIntrospectionClient(fromDatabase.dataDir),
      tokens: await stackTokenSource(fromDatabase.url),
    },
    stackPids(fromDatabase.pid),
  );

  const bareRow = { subject: 'baseline: bare oidc-provider, in-memory adapter', result: bareIntrospection };
  return [
    {
      name: INTROSPECTION,
      measured: {
        subject: 'auth service at its internal URL, as resource servers ask (embedded stack)',
        result: stackIntrospection,
      },
      baseline: bareRow,
    },
    {
      name: INTROSPECTION_DATABASE,
      measured: {
        subject: 'auth service at its internal URL, TOKEN_READ_CACHE_MS=0 (embedded stack)',
        result: databaseIntrospection,
      },
      baseline: bareRow,
    },
    {
      name: INTROSPECTION_GATEWAY,
      measured: {
        subject: 'auth service through the gateway (embedded stack)',
        result: gatewayIntrospection,
      },
      baseline: bareRow,
    },
    {
      name: REFRESH,
      measured: { subject: 'auth service through the gateway (embedded stack)', result: stackRefresh },
      baseline: { subject: 'baseline: bare oidc-provider, in-memory adapter', result: bareRefresh },
    },
  ];
}

/** The right token's answers (warm-up and measurement) and the audit rows found for them. */
let auditedRight: { answered: number; rows: number } | undefined;

/**
 * An authenticated GET through the whole pipeline beside the same bytes from a bare server, then
 * wrong tokens against the same stack (their baseline is the right token's measurement). Every
 * right answer must have its row in the stack's audit log afterwards.
 */
async function capabilitiesScenarios(): Promise<Scenario[]> {
  // Every wrong token comes from this one address: see UNBOUNDED_FAILURES.
  await using stack = await startStackProcess({
    env: { AUTH_FAILURES_PER_ADDRESS: String(UNBOUNDED_FAILURES) },
  });
  const [token = ''] = await mintStackTokens(stack, 1);
  const url = `${stack.url}${CAPABILITIES_PATH}`;
  const first = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = Buffer.from(await first.arrayBuffer());
  if (first.status !== 200) throw new Error(`capabilities answered ${first.status}: ${body}`);
  const expected = body.toString();
  await using same = await startSameBodyServer(BASELINE_SERVER, body);
  // Every right answer of warm-up and measurement (the first one above included), to be found in
  // the audit log: each was answered only after its row committed.
  let answered = 1;
  const right = await warmUpAndMeasure(
    () => ({
      url,
      headers: { authorization: `Bearer ${token}` },
      verifyBody: (text) => {
        if (text !== expected) return false;
        answered += 1;
        return true;
      },
    }),
    stackPids(stack.pid),
  );
  const bare = await warmUpAndMeasure(
    () => ({ url: `${same.server.url}${CAPABILITIES_PATH}`, verifyBody: (text) => text === expected }),
    async () => [same.server.pid],
  );
  /** The same forgery each request, or a token of its own fresh from each (nothing to cache). */
  const wrongLoad = (kind: WrongTokenKind) =>
    warmUpAndMeasure(() => wrongTokenLoad(url, token, kind), stackPids(stack.pid));
  const wrongSame = await wrongLoad('same');
  const wrongFresh = await wrongLoad('fresh');
  const wrongLegacy = await wrongLoad('legacy');
  auditedRight = {
    answered,
    rows: await stackAuditRows(stack.dataDir, { method: 'GET', path: CAPABILITIES_PATH, status: 200 }),
  };
  // autocannon ends a run by closing its connections: a request in flight then may have been
  // recorded without its answer being counted, at most one per connection and run.
  const unseen = auditedRight.rows - auditedRight.answered;
  if (unseen < 0 || unseen > 2 * connections)
    throw new Error(`${auditedRight.answered} right answers, but ${auditedRight.rows} rows in the audit log`);
  const rightRow = { subject: 'gateway (embedded stack), dashboard token, scope read', result: right };
  return [
    {
      name: CAPABILITIES,
      measured: rightRow,
      baseline: { subject: 'baseline: bare node:http, same body, no pipeline', result: bare },
    },
    {
      name: WRONG_SAME,
      measured: { subject: 'gateway (embedded stack)', result: wrongSame },
      baseline: rightRow,
    },
    {
      name: WRONG_FRESH,
      measured: { subject: 'gateway (embedded stack)', result: wrongFresh },
      baseline: rightRow,
    },
    {
      name: WRONG_LEGACY,
      measured: { subject: 'gateway (embedded stack)', result: wrongLegacy },
      baseline: rightRow,
    },
  ];
}

/** The memory write's answers and the rows found for them afterwards. */
let memoryWritten: { answered: number; rows: number } | undefined;

/** One pair of the context's alternating rounds, run one after the other. */
interface ContextPair {
  empty: Measurement;
  full: Measurement;
  /** full ÷ empty requests/s: what the machine's drift between the two spares. */
  ratio: number;
}
/** The context's pairs of rounds, in the order run. */
let contextRounds: ContextPair[] | undefined;
/** Pairs of alternating rounds of the context, empty and full (ABBA order, so a drift cancels). */
const contextPairs = Number(process.env.BENCH_CONTEXT_PAIRS ?? 5);

/** The pair whose full ÷ empty requests/s is the median (the lower middle if even). */
function medianPair(pairs: readonly ContextPair[]): ContextPair {
  const middle = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor((pairs.length - 1) / 2)];
  if (middle === undefined) throw new Error('no round of the context to take the median of');
  return middle;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length / 2;
  return sorted.length % 2 === 1
    ? (sorted[Math.floor(half)] ?? Number.NaN)
    : ((sorted[half - 1] ?? Number.NaN) + (sorted[half] ?? Number.NaN)) / 2;
};

/**
 * The context with an empty memory and with a full one, on one stack, in alternating rounds
 * (empty, full, full, empty, …) after one warm-up each, so that a machine whose speed drifts from
 * one 10 s run to the next (other work, PostgreSQL's background writes) charges both alike; the
 * rows are the rounds of the pair whose full ÷ empty is the median. Then each beside the same bytes from a bare server (checked as the load
 * checks the stack's).
 */
async function contextScenarios(empty: BrainSubject, full: BrainSubject, stackPid: number) {
  const loads = {
    empty: await contextLoad(empty, CONTEXT_MEMORY_MAX),
    full: await contextLoad(full, CONTEXT_MEMORY_MAX),
  };
  const pids = stackPids(stackPid);
  const warmUp = Math.min(2, durationSeconds);
  for (const context of [loads.empty, loads.full])
    await measure({ ...context.load(), connections, durationSeconds: warmUp, pids: [] });
  const round = (kind: 'empty' | 'full') =>
    measure({ ...loads[kind].load(), connections, durationSeconds, pids });
  const pairs: ContextPair[] = [];
  for (let i = 0; i < contextPairs; i += 1) {
    // Empty first in even pairs, full first in odd ones.
    let empty: Measurement;
    let full: Measurement;
    if (i % 2 === 0) {
      empty = await round('empty');
      full = await round('full');
    } else {
      full = await round('full');
      empty = await round('empty');
    }
    pairs.push({ empty, full, ratio: full.requestsPerSecond / empty.requestsPerSecond });
  }
  contextRounds = pairs;
  const pair = medianPair(pairs);
  const scenarios: Scenario[] = [];
  for (const [kind, name] of [
    ['empty', CONTEXT_EMPTY],
    ['full', CONTEXT_FULL],
  ] as const) {
    const context = loads[kind];
    await using same = await startSameBodyServer(BASELINE_SERVER, context.body);
    const expected = context.body.toString();
    const bare = await warmUpAndMeasure(
      () => ({ url: `${same.server.url}${CONTEXT_PATH}`, verifyBody: (text) => text === expected }),
      async () => [same.server.pid],
    );
    scenarios.push({
      name,
      measured: {
        subject: `gateway (embedded stack), dashboard token, scope full, ${context.rows} entries (the median pair's round)`,
        result: pair[kind],
      },
      baseline: {
        subject: `baseline: bare node:http, same body (${context.body.length} bytes)`,
        result: bare,
      },
    });
  }
  return scenarios;
}

/**
 * The brain's scenarios on one stack: the context of an owner with an empty memory and of one
 * whose memory is filled to FULL_MEMORY_ROWS by SQL, in alternating rounds; then the memory write
 * (a unique note per request, each answer a 201 with its entry, the rows counted afterwards).
 */
async function brainScenarios(): Promise<Scenario[]> {
  await using stack = await startStackProcess();
  await using subject = await brainSubject(stack);
  const scenarios: Scenario[] = [];
  if (runs('context')) {
    await using full = await brainSubject(stack, FULL_OWNER);
    await full.fillMemory(FULL_MEMORY_ROWS);
    scenarios.push(...(await contextScenarios(subject, full, stack.pid)));
  }
  if (runs('memory-write')) {
    const before = await subject.rows();
    const writes = memoryWriteLoad(subject);
    const gateway = await warmUpAndMeasure(writes.load, stackPids(stack.pid));
    gateway.errors += writes.counts.wrong;
    memoryWritten = { answered: writes.counts.written, rows: (await subject.rows()) - before };
    // A request in flight when a run ends may be stored without its answer being counted.
    const unseen = memoryWritten.rows - memoryWritten.answered;
    if (unseen < 0 || unseen > 2 * connections)
      throw new Error(`${memoryWritten.answered} notes answered 201, but ${memoryWritten.rows} rows stored`);
    const entry = Buffer.from(
      JSON.stringify({
        id: 'mem_0123456789abcdefghijkl',
        content: 'bench: run 1, connection 0, note 1',
        agentId: 'agt_0123456789abcdefghijkl',
        createdAt: new Date().toISOString(),
      }),
    );
    await using same = await startSameBodyServer(BASELINE_SERVER, entry);
    const bare = await warmUpAndMeasure(
      () => ({
        url: `${same.server.url}${MEMORY_PATH}`,
        connectionRequests: () => [{ method: 'POST', path: MEMORY_PATH, body: '{"content":"bench"}' }],
      }),
      async () => [same.server.pid],
    );
    scenarios.push({
      name: MEMORY_WRITE,
      measured: { subject: 'gateway (embedded stack), dashboard token, scope full', result: gateway },
      baseline: { subject: "baseline: bare node:http, an entry's body, no pipeline", result: bare },
    });
  }
  return scenarios;
}

/** Issue 16's targets for the proxied call: × nginx's requests/s, and the p99 it may add over nginx's. */
const PROXIED_TARGET = { ofNginx: 0.2, addedP99Ms: 10 };
const PROXIED = `GET ${PROXIED_PATH} through gateway and proxy to a 1 KB upstream`;
const PROXIED_NGINX = `GET ${UPSTREAM_PATH} through nginx (proxy_pass, keep-alive upstream) to the same upstream`;
const PROXIED_FLOOR = `GET ${UPSTREAM_PATH} through a bare Node forwarder (node:http, keep-alive Agent, pipe) to the same upstream`;
const PROXIED_LIBRARIES = `GET ${UPSTREAM_PATH} through express and http-proxy-middleware alone (the proxy's options) to the same upstream`;
/** The proxied call's audit rows afterwards, and the answers the load counted; or why nginx is missing. */
let proxiedChecks: { answered: number; calls: number; separate: number; nginxMissing?: string } | undefined;

/**
 * The same 1 KB upstream called directly, through nginx and through the stack's gateway and proxy
 * (bench/proxy-load.ts), in one run. Every answer must be the upstream's bytes; afterwards every
 * proxied answer the load counted must have its one row in the audit log (the gateway's, naming
 * the service and the upstream's status, docs/adr/0069), and no call a second one.
 */
async function proxiedScenarios(): Promise<Scenario[]> {
  await using subject = await proxiedSubject(BASELINE_SERVER);
  const expected = subject.body.toString();
  let answered = 0;
  const ours = await warmUpAndMeasure(
    () => ({
      url: `${subject.stack.url}${PROXIED_PATH}`,
      headers: { authorization: `Bearer ${subject.token}` },
      verifyBody: (text) => {
        if (text !== expected) return false;
        answered += 1;
        return true;
      },
    }),
    stackPids(subject.stack.pid),
  );
  const direct = await warmUpAndMeasure(
    () => ({ url: `${subject.upstream.url}${UPSTREAM_PATH}`, verifyBody: (text) => text === expected }),
    async () => [subject.upstream.pid],
  );
  const rows = await proxiedAuditRows(subject.stack);
  proxiedChecks = { answered, ...rows };
  // autocannon ends a run by closing its connections: a request in flight then may have been
  // recorded without its answer being counted, at most one per connection and run.
  if (rows.calls < answered || rows.calls - answered > 2 * connections || rows.separate !== 0)
    throw new Error(`${answered} proxied answers, but audit rows: ${JSON.stringify(rows)}`);
  const oursRow = {
    subject: 'gateway and proxy (embedded stack), token of scope services:github:read',
    result: ours,
  };
  const directRow = {
    subject: 'baseline: the upstream called directly (bare node:http, 1 KB)',
    result: direct,
  };
  const binary = nginxBinary();
  if ('missing' in binary) {
    proxiedChecks.nginxMissing = binary.missing;
    process.stderr.write(`bench: the nginx row is skipped: ${binary.missing}\n`);
    return [{ name: PROXIED, measured: oursRow, baseline: directRow }];
  }
  await using nginx = await startNginx(binary.path, subject.upstream.url);
  const throughNginx = await warmUpAndMeasure(
    () => ({ url: `${nginx.url}${UPSTREAM_PATH}`, verifyBody: (text) => text === expected }),
    async () => [nginx.pid, ...(await descendantPids(nginx.pid))],
  );
  const nginxRow = { subject: 'nginx (Debian package, worker_processes auto)', result: throughNginx };
  // The floors: what Node's own forwarding costs on this machine, and what express with
  // http-proxy-middleware (the chosen libraries) cost, each without any of the pipeline.
  const forwarderRow = async (start: typeof startNodeForwarder, subjectName: string) => {
    await using forwarder = await start(subject.upstream.url);
    const result = await warmUpAndMeasure(
      () => ({ url: `${forwarder.url}${UPSTREAM_PATH}`, verifyBody: (text) => text === expected }),
      async () => [forwarder.pid],
    );
    return { subject: subjectName, result };
  };
  const floorRow = await forwarderRow(
    startNodeForwarder,
    'bare Node forwarder (bench/node-forwarder.ts), one thread',
  );
  const librariesRow = await forwarderRow(
    startExpressForwarder,
    'express + http-proxy-middleware only (bench/express-forwarder.ts), one thread',
  );
  return [
    { name: PROXIED, measured: oursRow, baseline: nginxRow },
    { name: PROXIED_FLOOR, measured: floorRow, baseline: nginxRow },
    { name: PROXIED_LIBRARIES, measured: librariesRow, baseline: nginxRow },
    { name: PROXIED_NGINX, measured: nginxRow, baseline: directRow },
  ];
}

/** Whether the proxied call reaches the issue's targets beside nginx, and its audit rows. */
function proxiedNotes(scenarios: Scenario[]): string {
  const proxied = scenarios.find((s) => s.name === PROXIED);
  if (proxied === undefined || proxiedChecks === undefined) return '';
  const { result: m } = proxied.measured;
  const lines: string[] = [];
  if (proxiedChecks.nginxMissing !== undefined) {
    lines.push(
      `nginx row skipped: ${proxiedChecks.nginxMissing}. Proxied call ÷ direct: ${ratio(m.requestsPerSecond, proxied.baseline.result.requestsPerSecond)}.`,
    );
  } else {
    const { result: n } = proxied.baseline;
    const share = m.requestsPerSecond / n.requestsPerSecond;
    const added = m.p99Ms - n.p99Ms;
    const met = share >= PROXIED_TARGET.ofNginx && added <= PROXIED_TARGET.addedP99Ms;
    lines.push(
      `Proxied call ÷ nginx: ${share.toFixed(2)} × its requests/s, p99 ${added} ms over nginx's (${m.p99Ms} ms against ${n.p99Ms} ms). Target at least ${PROXIED_TARGET.ofNginx} × and at most ${PROXIED_TARGET.addedP99Ms} ms added: ${met ? 'met' : 'NOT met'}.`,
    );
  }
  const floors = [
    [PROXIED_FLOOR, 'the bare Node forwarder (the floor on one thread)', 'the forwarder'],
    [PROXIED_LIBRARIES, "express + http-proxy-middleware alone (the chosen libraries' floor)", 'they'],
  ] as const;
  for (const [name, what, short] of floors) {
    const floor = scenarios.find((s) => s.name === name)?.measured.result;
    if (floor !== undefined)
      lines.push(
        `Proxied call ÷ ${what}: ${(m.requestsPerSecond / floor.requestsPerSecond).toFixed(2)} × its requests/s; ${short} ÷ nginx ${ratio(floor.requestsPerSecond, proxied.baseline.result.requestsPerSecond)}.`,
      );
  }
  lines.push(
    `Audit rows of the proxied calls (warm-up and measurement): ${proxiedChecks.calls} rows naming the service and the upstream's 200 (${proxiedChecks.separate} proxy.call rows besides) for ${proxiedChecks.answered} answers counted by the load.`,
  );
  return lines.join('\n');
}

/** Whether the context and the memory write reach the issue's targets, and the context stays flat. */
function brainNotes(scenarios: Scenario[]): string {
  const find = (name: string) => scenarios.find((s) => s.name === name)?.measured.result;
  const lines: string[] = [];
  const rate = (r: Measurement) => Math.round(r.requestsPerSecond);
  const reached = (r: Measurement) =>
    r.requestsPerSecond >= BRAIN_TARGET.requestsPerSecond ? 'met' : 'NOT met';
  for (const name of [CONTEXT_EMPTY, CONTEXT_FULL, MEMORY_WRITE]) {
    const r = find(name);
    if (r !== undefined)
      lines.push(
        `Target: ${name} at least ${BRAIN_TARGET.requestsPerSecond} requests/s: ${reached(r)} (${rate(r)} requests/s, server CPU ${cpuMsPerRequest(r).toFixed(3)} ms per request).`,
      );
  }
  if (contextRounds !== undefined) {
    const pairs = contextRounds;
    const rates = pairs.map((p) => p.ratio);
    const cpu = pairs.map((p) => cpuMsPerRequest(p.full) / cpuMsPerRequest(p.empty));
    const spread = Math.abs(median(rates) - 1);
    const list = (values: number[]) => values.map((v) => v.toFixed(2)).join(', ');
    lines.push(
      `Target: the context within ${100 * BRAIN_TARGET.contextSpread} % between an empty memory and ${FULL_MEMORY_ROWS} entries: ${spread <= BRAIN_TARGET.contextSpread ? 'met' : 'NOT met'} (${(100 * spread).toFixed(1)} %: the median of ${pairs.length} alternating pairs' full ÷ empty requests/s, ${list(rates)}).`,
      `The context's rounds, requests/s empty / full: ${pairs.map((p) => `${rate(p.empty)} / ${rate(p.full)}`).join(', ')}; server CPU per request full ÷ empty: ${list(cpu)} (median ${median(cpu).toFixed(2)}).`,
    );
  }
  if (memoryWritten !== undefined)
    lines.push(
      `Memory rows written by the load (warm-up and measurement): ${memoryWritten.rows} rows for ${memoryWritten.answered} answers 201 with their entry (a request in flight when a run ends is stored, its answer not counted).`,
    );
  return lines.join('\n');
}

interface MemoryRow {
  subject: string;
  sample: MemorySample;
}

/**
 * Resident memory (bench/memory.ts), each process measured alone, one after the other: a bare Node
 * process holding an embedded PostgreSQL started the stack's way, idle; then the stack (started by
 * scripts/start), idle after start-up, and again after the authenticated load of the capabilities
 * scenario. Each sample after the process idled for BENCH_SETTLE_SECONDS.
 */
async function memoryScenario(): Promise<MemoryRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'pag-bench-postgres-'));
  // mkdtemp makes it 0700; run as root, PostgreSQL runs as `postgres` and must get through.
  await chmod(dir, 0o755);
  let bare: MemorySample;
  try {
    await using baseline = await startReadyProcess({ args: [BARE_POSTGRES, join(dir, 'postgres')] });
    await idle(settleSeconds * 1000);
    bare = await sampleMemory(baseline.pid);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await using stack = await startStackProcess();
  await idle(settleSeconds * 1000);
  const started = await sampleMemory(stack.pid);
  const [token = ''] = await mintStackTokens(stack, 1);
  const load = await warmUpAndMeasure(
    () => ({ url: `${stack.url}${CAPABILITIES_PATH}`, headers: { authorization: `Bearer ${token}` } }),
    stackPids(stack.pid),
  );
  if (load.errors + load.non2xx > 0)
    throw new Error(`memory scenario's load failed: ${JSON.stringify(load)}`);
  await idle(settleSeconds * 1000);
  const loaded = await sampleMemory(stack.pid);
  return [
    { subject: `embedded stack, idle ${settleSeconds} s after start-up`, sample: started },
    {
      subject: `embedded stack, idle ${settleSeconds} s after ${durationSeconds} s of GET ${CAPABILITIES_PATH} (${Math.round(load.requestsPerSecond)} requests/s)`,
      sample: loaded,
    },
    { subject: 'baseline: bare Node process with an embedded PostgreSQL, idle', sample: bare },
  ];
}

const mb = (kib: number) => ((kib * 1024) / 1e6).toFixed(0);

function memoryTable(rows: MemoryRow[]): string {
  const header = [
    '| measured | Node PSS MB | PostgreSQL PSS MB (processes) | total PSS MB | Node RSS + PostgreSQL PSS MB |',
    '|---|---:|---:|---:|---:|',
  ];
  const lines = rows.map(
    ({ subject, sample: m }) =>
      `| ${subject} | ${mb(m.nodePssKiB)} | ${mb(m.postgresPssKiB)} (${m.postgresProcesses}) | ${mb(totalPssKiB(m))} | ${mb(aloneKiB(m))} |`,
  );
  return [...header, ...lines].join('\n');
}

function memoryTarget(rows: MemoryRow[]): string {
  const [idleRow, , baselineRow] = rows;
  if (idleRow === undefined || baselineRow === undefined) return '';
  const verdict = (kib: number) => ((kib * 1024) / 1e6 < MEMORY_TARGET_MB ? 'met' : 'NOT met');
  const pss = totalPssKiB(idleRow.sample);
  const alone = aloneKiB(idleRow.sample);
  return [
    `Target: the whole embedded stack under ${MEMORY_TARGET_MB} MB idle, PostgreSQL included, counted as PSS: ${verdict(pss)} (${mb(pss)} MB).`,
    `With the Node process's pages shared outside the stack counted in full (a machine running only the stack): ${verdict(alone)} (${mb(alone)} MB).`,
    `The stack over its baseline (a bare Node process with the same embedded PostgreSQL): ${mb(pss - totalPssKiB(baselineRow.sample))} MB PSS.`,
  ].join('\n');
}

/** CPU time of the serving processes per answered request. */
const cpuMsPerRequest = (r: Measurement) =>
  r.requestsPerSecond === 0 ? Number.POSITIVE_INFINITY : (r.serverCpuPercent * 10) / r.requestsPerSecond;
/** Run-to-run noise on this machine: a wrong token within 15 % of a right one's cost counts as equal. */
const COST_MARGIN = 1.15;

/** What the pipeline adds to the bare handler, and whether a wrong token costs more than a right one. */
function capabilitiesNotes(scenarios: Scenario[]): string {
  const right = scenarios.find((s) => s.name === CAPABILITIES);
  if (right === undefined) return '';
  const { result: m } = right.measured;
  const { result: b } = right.baseline;
  const met =
    m.requestsPerSecond >= CAPABILITIES_TARGET.requestsPerSecond && m.p99Ms < CAPABILITIES_TARGET.p99Ms;
  const lines = [
    `Gateway's own added latency on ${CAPABILITIES_PATH} (gateway − bare server, same body): p50 ${m.p50Ms - b.p50Ms} ms, p99 ${m.p99Ms - b.p99Ms} ms.`,
    `Target: at least ${CAPABILITIES_TARGET.requestsPerSecond} requests/s and p99 under ${CAPABILITIES_TARGET.p99Ms} ms: ${met ? 'met' : 'NOT met'} (${Math.round(m.requestsPerSecond)} requests/s, p99 ${m.p99Ms} ms).`,
  ];
  const before = CAPABILITIES_BEFORE_AUDIT;
  const share = m.requestsPerSecond / before.requestsPerSecond;
  lines.push(
    `With the audit log persisting every event: ${share.toFixed(2)} × the ${before.requestsPerSecond} requests/s measured before it (commit ${before.commit}, nothing kept the events); target at least ${before.share}: ${share >= before.share ? 'met' : 'NOT met'}. ${(m.requestsPerSecond / b.requestsPerSecond).toFixed(2)} × the bare server.`,
  );
  if (auditedRight !== undefined)
    lines.push(
      `Audit rows of the right token's answers (warm-up and measurement): ${auditedRight.rows} rows for ${auditedRight.answered} answers counted by the load (a request in flight when a run ends is recorded, its answer not counted).`,
    );
  for (const name of [WRONG_SAME, WRONG_FRESH, WRONG_LEGACY]) {
    const scenario = scenarios.find((s) => s.name === name);
    if (scenario === undefined) continue;
    const wrong = cpuMsPerRequest(scenario.measured.result);
    const rightCost = cpuMsPerRequest(scenario.baseline.result);
    const verdict = wrong <= rightCost * COST_MARGIN ? 'no more than' : 'MORE than';
    lines.push(
      `${name}: server CPU ${wrong.toFixed(3)} ms per request, ${verdict} ${rightCost.toFixed(3)} ms for ${scenario.baseline.subject}.`,
    );
  }
  return lines.join('\n');
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
  const notes = [capabilitiesNotes(scenarios), brainNotes(scenarios), proxiedNotes(scenarios)]
    .filter(Boolean)
    .join('\n\n');
  const introspection = scenarios.find((s) => s.name === INTROSPECTION);
  if (introspection === undefined) return notes;
  const measured = introspection.measured.result.requestsPerSecond;
  const verdict = measured >= INTROSPECTION_TARGET ? 'met' : 'NOT met';
  const others = [INTROSPECTION_DATABASE, INTROSPECTION_GATEWAY]
    .map((name) => scenarios.find((s) => s.name === name))
    .filter((s) => s !== undefined)
    .map((s) => `${s.name}: ${Math.round(s.measured.result.requestsPerSecond)} requests/s`);
  const line = [
    `Target: introspection at least ${INTROSPECTION_TARGET} requests/s on this machine, where resource servers introspect (the auth service's internal URL): ${verdict} (${Math.round(measured)} requests/s).`,
    ...others.map((other) => `${other} (not the target's measure; see above).`),
  ].join('\n');
  return notes === '' ? line : `${line}\n\n${notes}`;
}

function ingestTable(ingest: IngestResult | undefined): string {
  if (ingest === undefined) return '';
  const header = [
    `| audit ingest, batches of ${BATCH_SIZE} | events/s | batch p50 ms | batch p99 ms | events (batches) |`,
    '|---|---:|---:|---:|---:|',
  ];
  const rows = [
    ['AuditLog.append as the service role: lock, head, dedup, chain, one INSERT, commit', ingest.chain],
    ['baseline: plain INSERT of the same rows, same columns, no key, index or trigger', ingest.plain],
    ['plain INSERT of the same rows, same columns with the same key and indexes', ingest.indexed],
  ] as const;
  const lines = rows.map(
    ([subject, m]) =>
      `| ${subject} | ${Math.round(m.eventsPerSecond)} | ${m.batchP50Ms} | ${m.batchP99Ms} | ${m.events} (${m.batches}) |`,
  );
  return [...header, ...lines].join('\n');
}

function ingestTarget(ingest: IngestResult | undefined): string {
  if (ingest === undefined) return '';
  const rate = ingest.chain.eventsPerSecond;
  const ofPlain = rate / ingest.plain.eventsPerSecond;
  const met = rate >= INGEST_TARGET.eventsPerSecond && ofPlain >= INGEST_TARGET.ofPlain;
  return [
    `Target: ingest at least ${INGEST_TARGET.eventsPerSecond} events/s and at least ${INGEST_TARGET.ofPlain} × the plain INSERT's rate: ${met ? 'met' : 'NOT met'} (${Math.round(rate)} events/s, ${ofPlain.toFixed(2)} × plain, ${(rate / ingest.indexed.eventsPerSecond).toFixed(2)} × the indexed plain INSERT).`,
    `Rows counted in PostgreSQL afterwards, warm-up included: ${ingest.rows.chain} in the log, ${ingest.rows.plain} and ${ingest.rows.indexed} in the plain tables.`,
  ].join('\n');
}

/** Which code was measured: the commit, and whether the work tree differed from it. */
function revision(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown (not a git work tree)';
  }
}

const scenarios = [
  ...(runs('discovery') ? [await discoveryIndexScenario()] : []),
  ...(runs('oauth') ? await oauthScenarios() : []),
  ...(runs('capabilities') ? await capabilitiesScenarios() : []),
  ...(runs('context') || runs('memory-write') ? await brainScenarios() : []),
  ...(runs('proxy') ? await proxiedScenarios() : []),
];
const memory = runs('memory') ? await memoryScenario() : [];
const ingest = runs('audit') ? await measureIngest({ durationSeconds }) : undefined;
const cpu = cpus();
const machine = `${cpu.length} cores (${cpu[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}`;
const report = `# Benchmarks

Written by \`pnpm bench\` (bench/run.ts); do not edit by hand. Each scenario runs against the
embedded stack started as \`scripts/start\` runs it, on loopback, beside a baseline measured in the
same run. Load: autocannon in the bench process (on the same cores as the servers),
${connections} connections, ${durationSeconds} s after a warm-up.
Peak RSS is the peak resident memory (VmHWM) of the serving processes since they started: for
the stack, the Node process plus its embedded PostgreSQL processes (their shared buffers are
counted in each, so the sum overstates the real total). Server CPU is the CPU time of those
processes in % of one core (200 = both cores); other CPU is what every other process on the
machine took meanwhile, in % of the whole machine: above a few %, the figures of that row are
low by about that much. Errors count failed connections, timeouts and 2xx answers whose body is
not the expected one.

The OAuth scenarios load the auth service (oidc-provider on PostgreSQL); the baseline is
oidc-provider alone, in its own process (bench/bare-oidc-server.ts: its default in-memory adapter,
on a store larger than the default 1,000 entries).
Introspection: each connection asks about its own access token as our resource servers do
(client_secret_basic, \`token_type_hint=access_token\`), and every answer must be
\`"active":true\`. Resource servers introspect at the auth service's internal URL (AUTH_URL, never
the public gateway), so that is where the target is measured; the auth service then answers a
token it read within \`TOKEN_READ_CACHE_MS\` (1 s) from memory (docs/adr/0018). The same load
with \`TOKEN_READ_CACHE_MS=0\` (every answer read from PostgreSQL: a token asked about for the
first time) and through the public gateway are measured beside it. Refresh grant (through the
gateway, where clients redeem): each connection holds its own refresh token, from its own client
and grant, and sends the rotated one from each answer with its next request; a refresh token is
accepted once, so one lost or refused answer breaks that chain (non-2xx from then on). Each run
gets fresh tokens. The stack's come from the real flow (registration, login and consent pages,
code exchange); the baseline mints its own through oidc-provider's models. Profile:
\`pnpm exec node bench/profile-stack.ts introspection|refresh\` (\`PROFILE_AT=auth\`: at the
internal URL).

Authenticated request (bench/capabilities-load.ts): \`GET ${CAPABILITIES_PATH}\` with a dashboard
token made by \`pag token create\` (scope \`read\`, no limits; ${STORED_TOKENS} tokens stored for the owner)
through the whole gateway pipeline (route lookup, introspection with the gateway's cache, scope
check, usage count, dispatch, and the audit event, answered once its row is committed in the audit
log); every answer must be the exact body of the first, and afterwards the audit log must hold a
row for each one the load counted. Baseline: a bare node:http server answering those same
bytes, i.e. the handler's output without the pipeline; the difference is the gateway's own added
latency. Wrong tokens (docs/adr/0025): the same forged token on every request; a fresh forged
one per request (our \`pag_dt_\` prefix, a random body and a random tag: what anyone without the
tag key can make, so nothing about it can be cached); and a fresh random string per request in
the shape tokens had before the prefix (legacy; a fresh stack has no legacy tokens, so the auth
service accepts none and says so). Every answer must be a 401 \`INVALID_TOKEN\` (that stack allows
one address a budget of rejected tokens no run reaches, \`AUTH_FAILURES_PER_ADDRESS=${UNBOUNDED_FAILURES}\`,
so each is checked and counted as from many addresses; past the default budget an address is
refused before its token is looked at). Each is set beside the right token, answered from the
gateway's introspection cache (ratios: wrong ÷ right). A wrong token's cost is compared as server
CPU time per request, within 15 % for run-to-run noise.

Brain (bench/brain-load.ts): \`GET ${CONTEXT_PATH}\` and \`POST ${MEMORY_PATH}\` through the whole
pipeline and the bus to the brain and its PostgreSQL, with a dashboard token of scope \`full\` made by
\`pag token create\`, on one stack with two owners: the context of one with an empty memory and of one
whose memory is filled to ${FULL_MEMORY_ROWS} entries by one INSERT through the stack's PostgreSQL (the
owner's real rows; then \`VACUUM (ANALYZE)\` of the table, the state autovacuum leaves a memory in),
in ${contextPairs} pairs of alternating rounds (empty, full, full, empty, …;
the rows are the rounds of the pair whose full ÷ empty requests/s is the median, and that ratio is
the spread judged, docs/adr/0077); then the memory
write, each request a note of its own, each answer a 201 with its entry, and afterwards the rows
counted. Every context answer must carry the memory count of the rows in the table and no unavailable
part (the first in full: the newest ${CONTEXT_MEMORY_MAX} entries at most).
Baselines: a bare node:http server answering the same context bytes, and one answering an entry's body
to the same POST.

Memory (bench/memory.ts): the proportional set size (PSS, \`/proc/<pid>/smaps_rollup\`) of the
stack's Node process and of every process of its embedded PostgreSQL (server and backends), summed;
a page shared by n processes counts 1/n in each, so PostgreSQL's shared memory counts once. MB are
10⁶ bytes. The stack is started by \`scripts/start\` (nothing else stays resident; \`pnpm start\` adds
the pnpm process, about 80 MB more) and sampled after ${settleSeconds} s idle, then again ${settleSeconds} s after a
load on \`GET ${CAPABILITIES_PATH}\`. PSS also splits pages shared with processes outside the stack,
chiefly the Node binary's code, which this bench process maps too; the last column counts the Node
process's pages in full (its RSS), as on a machine that runs only the stack. Baseline, measured alone
before the stack: a bare Node process holding an embedded PostgreSQL started the same way
(bench/bare-postgres.ts).

Audit ingest (bench/audit-ingest.ts): request events committed through the audit log's writer
(AuditLog.append, as the ingest calls it: one transaction per batch of ${BATCH_SIZE} under the append
lock, the head read, stored event ids dropped, seq and SHA-256 chain over each row's JCS computed in
JS, one INSERT), connected as the service's own role, batch after batch as the ingest's one consumer
commits them, for ${durationSeconds} s of appending after a warm-up. In the same run and the same
embedded PostgreSQL (started as the stack starts it: synchronous commit), each batch is followed by
a plain INSERT of the same rows (the same unnest statement) into a table with the same columns and
nothing else (the baseline), and into one with the same columns, key and indexes (no trigger, lock,
dedup or chain), which tells the indexes' share of the cost from the writer's own. Rates are events
per second of time spent writing.

Proxied call (bench/proxy-load.ts, bench/nginx.ts, docs/adr/0067): one upstream, a bare node:http
server in its own process answering the same 1,024 bytes of JSON to every request, called three ways
in the same run: directly; through nginx (Debian's package, installed by the bench when missing,
started with its own config: \`proxy_pass\` to an upstream block with \`keepalive 64\`, HTTP/1.1, no
access log, \`worker_processes auto\`); and through the embedded stack's gateway and proxy, where the
upstream is the owner's GitHub (\`CONNECTOR_BASE_URLS\`, the key stored by \`pag connection add\`)
called with a dashboard token of scope \`services:github:read\`. Every answer must be the upstream's
bytes; afterwards the audit log must hold one row for each answer the load counted: the gateway's
request row naming the service and the upstream's status (docs/adr/0069). Profile: \`pnpm exec node bench/profile-stack.ts proxy\`.
The floor (docs/adr/0074): a bare Node forwarder in its own process (bench/node-forwarder.ts: a
node:http server, \`http.request\` to the upstream over a keep-alive Agent, the answer piped back,
nothing else: no routing, token, scope, credential, header policy, limits, audit or metrics) in
front of the same upstream. It is what Node's own forwarding costs on one thread of this machine:
the stack's row below it is the pipeline's cost, the forwarder's row below nginx is the platform's.
The chosen libraries' floor (docs/adr/0081): express with http-proxy-middleware as its one
middleware, configured as the proxy's forwarders are (bench/express-forwarder.ts), and nothing
else, in front of the same upstream: between it and the stack is what our pipeline adds.

Command: \`BENCH_DURATION=${durationSeconds} BENCH_CONNECTIONS=${connections} pnpm bench\`
Run: ${new Date().toISOString()} · commit ${revision()} · Node ${process.version} · ${machine}

${table(scenarios)}

Stack ÷ baseline (requests/s: below 1 is slower; latencies: above 1 is slower):

${ratios(scenarios)}

${target(scenarios)}

${memoryTable(memory)}

${memoryTarget(memory)}

${ingestTable(ingest)}

${ingestTarget(ingest)}

${(await readFile(PROFILE_NOTES, 'utf8')).trim()}
`;
if (only.size === 0) await writeFile(REPORT, report);
const printed = [
  ...(scenarios.length > 0 ? [table(scenarios), ratios(scenarios), target(scenarios)] : []),
  ...(memory.length > 0 ? [memoryTable(memory), memoryTarget(memory)] : []),
  ...(ingest === undefined ? [] : [ingestTable(ingest), ingestTarget(ingest)]),
  only.size === 0 ? 'written to docs/benchmarks.md' : 'BENCH_ONLY: docs/benchmarks.md left as it was',
];
process.stdout.write(`${printed.join('\n\n')}\n`);
