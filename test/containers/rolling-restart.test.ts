/**
 * Issue 14 point 5, with containers: two replicas of every service, a steady load of
 * authenticated requests through the gateway's one URL (the gateway's context, memory writes, the
 * token's capabilities, the connected-service list over the bus, a proxy route over HTTP) and a
 * trigger run now during each restart, while every service is restarted one replica at a time
 * (`gw.restart`: SIGTERM, wait for the exit, a new container, wait until it is ready). Then:
 * - no answer is a 5xx but a 503 with Retry-After, and each of those, sent again after the time
 *   it gave, was answered (docs/adr/0057);
 * - `pag audit verify` passes, and every answered request has exactly one audit row (by request id);
 * - every run the trigger was asked for exists once and was started at most once.
 * The counts are printed for the report.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { TriggerRun } from '@pag/contracts';
import type { StartedGatewayContainer } from '@pag/testkit';
import { GatewayContainer } from '@pag/testkit';
import { createPrismaClient } from '../../packages/kit/src/mod.ts';
import { eventually } from '../../packages/kit/src/testing/mod.ts';
import { auditDatabase } from '../../services/audit/src/database.ts';
import { PrismaClient as AuditPrisma } from '../../services/audit/src/generated/prisma/client.ts';
import { triggerDatabase } from '../../services/trigger/src/database.ts';
import { PrismaClient as TriggerPrisma } from '../../services/trigger/src/generated/prisma/client.ts';
import { rowsPerRequest } from '../support/audit-crash.ts';

const SERVICES = ['gateway', 'auth', 'brain', 'proxy', 'trigger', 'audit'] as const;
/** Requests under way at any time. */
const CONCURRENCY = 4;
/** How often a 503 with Retry-After is sent again before the client gives up on it. */
const RESENDS = 5;

/** One request of the load as the client saw it. */
interface Answer {
  kind: string;
  status: number;
  requestId: string;
  retryAfter: string | null;
  body: string;
}

/** What the load saw: every answer, and what it could not get answered. */
interface LoadReport {
  answers: Answer[];
  /** A 5xx that was not a 503 with Retry-After, or a 503 still refused after RESENDS. */
  failures: string[];
  /** Requests that got no answer at all (the connection failed). */
  unanswered: string[];
  /** 503s with Retry-After that were sent again and then answered. */
  retried: number;
}

let gw: StartedGatewayContainer;
/** What is being restarted now, so a failure says when it happened. */
let phase = 'before the restarts';
let token: string;
let triggerId: string;

beforeAll(async () => {
  gw = await new GatewayContainer().withServices('all').withReplicas(2).start();
  const owner = await gw.createOwner({ plan: 'pro' });
  token = await owner.createToken({ scopes: ['full'] });
  const created = await call('POST', '/triggers', {
    name: 'Every few minutes',
    kind: 'schedule',
    schedule: { type: 'interval', intervalMinutes: 5, atHour: 0, atMinute: 0 },
    timezone: 'UTC',
    actionType: 'ai_prompt',
    action: { prompt: 'Say hello.', services: [] },
  });
  expect(created.status).toBe(201);
  triggerId = ((await created.json()) as { id: string }).id;
}, 600_000);

afterAll(async () => {
  await gw?.stop();
}, 120_000);

function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${gw.baseUrl}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The mix the load sends, round and round. */
const MIX: { kind: string; send: (n: number) => Promise<Response> }[] = [
  { kind: 'context', send: () => call('GET', '/gateway/context') },
  {
    kind: 'memory',
    send: (n) => call('POST', '/memory', { content: `note ${n} during the rolling restart` }),
  },
  { kind: 'capabilities', send: () => call('GET', '/tokens/me/capabilities') },
  { kind: 'services', send: () => call('GET', '/services') },
  // Over HTTP to the proxy service: not connected, so 409, but answered by a proxy replica.
  { kind: 'proxy-route', send: () => call('GET', '/services/github/user') },
];

/** Sends one request, again after Retry-After while it is a 503 that says so. */
async function sendOne(
  kind: string,
  send: () => Promise<Response>,
  report: LoadReport,
): Promise<Answer | null> {
  for (let attempt = 0; ; attempt += 1) {
    let response: Response;
    let body: string;
    try {
      response = await send();
      body = await response.text();
    } catch (error) {
      report.unanswered.push(`${kind} (${phase}): ${String((error as Error).cause ?? error)}`);
      return null;
    }
    const answer: Answer = {
      kind,
      status: response.status,
      requestId: response.headers.get('x-request-id') ?? '',
      retryAfter: response.headers.get('retry-after'),
      body,
    };
    report.answers.push(answer);
    if (answer.status < 500) {
      if (attempt > 0) report.retried += 1;
      return answer;
    }
    if (answer.status !== 503 || answer.retryAfter === null || attempt >= RESENDS) {
      report.failures.push(
        `${describe(answer)} (${phase}; request ${answer.requestId}, attempt ${attempt + 1})`,
      );
      return answer;
    }
    await sleep(Number(answer.retryAfter) * 1000);
  }
}

/** CONCURRENCY clients sending the mix until `stop` is aborted. */
async function load(stop: AbortSignal): Promise<LoadReport> {
  const report: LoadReport = { answers: [], failures: [], unanswered: [], retried: 0 };
  let sent = 0;
  const client = async () => {
    while (!stop.aborted) {
      const n = sent;
      sent += 1;
      const { kind, send } = MIX[n % MIX.length] as (typeof MIX)[number];
      await sendOne(kind, () => send(n), report);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  return report;
}

test('every service restarted one replica at a time under load: no 5xx but retried 503s, no audit event lost, no trigger run twice', async () => {
  const stop = new AbortController();
  const running = load(stop.signal);
  const runs: string[] = [];
  const runReport: LoadReport = { answers: [], failures: [], unanswered: [], retried: 0 };
  for (const service of SERVICES) {
    const runNow = sendOne('run-now', () => call('POST', `/triggers/${triggerId}/run`), runReport);
    phase = `restarting ${service}`;
    await gw.restart(service);
    const ran = await runNow;
    if (ran?.status === 202) runs.push((JSON.parse(ran.body) as TriggerRun).runId);
  }
  phase = 'after the restarts';
  stop.abort();
  const report = await running;
  const answers = [...report.answers, ...runReport.answers];

  const counts = {
    requests: answers.length,
    byStatus: countBy(answers.map((answer) => String(answer.status))),
    retriedAfter503: report.retried + runReport.retried,
    // Which requests met a 503, and why (the error code and message).
    unavailable: answers.filter((answer) => answer.status >= 500).map(describe),
    runsAsked: runs.length,
    distinctRuns: new Set(runs).size,
  };
  process.stdout.write(`rolling restart: ${JSON.stringify(counts)}\n`);
  expect([...report.failures, ...runReport.failures]).toEqual([]);
  expect([...report.unanswered, ...runReport.unanswered]).toEqual([]);
  expect(report.answers.length).toBeGreaterThan(SERVICES.length * 10);

  await gw.pag(['audit', 'verify']);
  const auditDb = createPrismaClient(AuditPrisma, {
    databaseUrl: gw.databaseUrl,
    schema: auditDatabase.schema,
  });
  const triggerDb = createPrismaClient(TriggerPrisma, {
    databaseUrl: gw.databaseUrl,
    schema: triggerDatabase.schema,
  });
  try {
    // Events a stopped audit replica had been sent come back after the consumer's ack wait.
    await eventually(
      async () => {
        const rows = await rowsPerRequest(auditDb);
        const wrong = answers
          .filter((answer) => (rows.get(answer.requestId) ?? 0) !== 1)
          .map(
            (answer) =>
              `${answer.requestId} (${answer.kind} ${answer.status}): ${rows.get(answer.requestId) ?? 0} rows`,
          );
        expect(wrong).toEqual([]);
      },
      { what: 'one audit row per answered request', timeoutMs: 60_000, intervalMs: 1_000 },
    );
    await gw.pag(['audit', 'verify']);

    const stored = await triggerDb.$queryRaw<{ id: string; attempts: number; cause: string }[]>`
      SELECT id, attempts, cause FROM "trigger".runs WHERE trigger_id = ${triggerId}`;
    expect(stored.filter((run) => run.attempts > 1)).toEqual([]);
    // Run now while a run is still queued answers that run: one run per distinct id asked for.
    const manual = stored.filter((run) => run.cause === 'manual').map((run) => run.id);
    expect(manual.sort()).toEqual([...new Set(runs)].sort());
    process.stdout.write(`trigger runs: ${JSON.stringify(countBy(stored.map((run) => run.cause)))}\n`);
  } finally {
    await auditDb.$disconnect();
    await triggerDb.$disconnect();
  }
}, 900_000);

/** A 5xx answer in a line: what was asked, the status, the error's code and message. */
function describe(answer: Answer): string {
  let error: { code?: string; message?: string } = {};
  try {
    error = (JSON.parse(answer.body) as { error?: typeof error }).error ?? {};
  } catch {
    // not the error body: the line says so by its absence
  }
  return `${answer.kind} ${answer.status} ${error.code ?? '-'}: ${error.message ?? answer.body.slice(0, 80)}`;
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
