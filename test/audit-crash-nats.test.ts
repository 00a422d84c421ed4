/**
 * The audit log with NATS, through crashes: a nats-server with JetStream, the gateway publishing
 * every request's event on it (in this process), and the audit service as its own process (node
 * services/audit/src/main.ts as its own login role). kill -9 of the audit service in the middle of
 * 5,000 requests, then it starts again; and kill -9 of nats-server in the middle of a burst, then it
 * starts again (same port, same store: what it had acknowledged was written before the ack). After each: every answered request has exactly one row (by its X-Request-Id),
 * none has two, and `pag audit verify` ends with `ok <rows> rows`. A request the gateway refused
 * with its own "could not be recorded" 503 was not answered: it may have a row or none.
 *
 * The services are imported by path: the workspace root does not depend on them as packages.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AuditStream } from '@pag/contracts';
import {
  applyMigrations,
  createLogger,
  createMetrics,
  createPrismaClient,
  NatsBus,
} from '../packages/kit/src/mod.ts';
import type { NatsServer, TestPostgres } from '../packages/kit/src/testing/mod.ts';
import { eventually, freePort, startNatsServer, startTestPostgres } from '../packages/kit/src/testing/mod.ts';
import { auditDatabase } from '../services/audit/src/database.ts';
import { PrismaClient } from '../services/audit/src/generated/prisma/client.ts';
import { createAuditLogin, newSigningKey } from '../services/audit/test/support/audit-login.ts';
import type { RunningGateway } from '../services/gateway/src/mod.ts';
import { loadGatewayConfig, startGateway } from '../services/gateway/src/mod.ts';
import type { Answer, ServiceProcess } from './support/audit-crash.ts';
import { burst, pag, rowProblems, rowsPerRequest, startAuditProcess } from './support/audit-crash.ts';

const CONCURRENCY = 50;
const logger = createLogger({ service: 'audit-crash-nats-test', level: 'silent' });

let nats: NatsServer;
let postgres: TestPostgres;
/** The tables' owner, to read every row. */
let db: PrismaClient;
let serviceUrl: string;
const signingKey = newSigningKey();
let gatewayBus: NatsBus;
let gateway: RunningGateway;
let url: string;
let audit: ServiceProcess | undefined;

/** The audit service as its own process, as its own login role. */
async function startAudit(): Promise<ServiceProcess> {
  return startAuditProcess({
    NATS_URL: nats.url,
    DATABASE_URL: serviceUrl,
    AUDIT_SIGNING_KEY: signingKey,
    HOST: '127.0.0.1',
    OPS_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
  });
}

beforeAll(async () => {
  nats = await startNatsServer();
  postgres = await startTestPostgres();
  await applyMigrations({ databaseUrl: postgres.url, ...auditDatabase });
  serviceUrl = await createAuditLogin(postgres.url);
  db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: auditDatabase.schema });
  gatewayBus = await NatsBus.connect({ url: nats.url, name: 'gateway', logger });
  const config = loadGatewayConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
  gateway = await startGateway({
    config,
    bus: gatewayBus,
    logger,
    metrics: createMetrics({ defaultMetrics: false }),
  });
  url = `http://127.0.0.1:${gateway.port}/api/v1/`;
  audit = await startAudit();
}, 60_000);

afterAll(async () => {
  await audit?.stop();
  await gateway?.close();
  await gatewayBus?.close();
  await db?.$disconnect();
  await postgres?.stop();
  await nats?.stop();
});

/** JetStream's own view of the audit service's durable consumer. */
async function consumerState(): Promise<{ pending: number; unacknowledged: number }> {
  const info = await gatewayBus.request<{ num_pending: number; num_ack_pending: number }>(
    `$JS.API.CONSUMER.INFO.${AuditStream.name}.${AuditStream.consumer}`,
    {},
    { timeoutMs: 2_000 },
  );
  return { pending: info.num_pending, unacknowledged: info.num_ack_pending };
}

/**
 * Once the consumer has every message of the stream acknowledged, every event is a committed row
 * (the service acknowledges after COMMIT): then the rows are compared with the answers.
 */
async function expectOneRowPerAnswer(answers: Answer[]): Promise<void> {
  await eventually(
    async () => {
      const state = await consumerState();
      return state.pending === 0 && state.unacknowledged === 0;
    },
    { what: 'the audit service acknowledged every event on the stream', timeoutMs: 40_000, intervalMs: 100 },
  );
  expect(rowProblems(answers, await rowsPerRequest(db))).toEqual([]);
  const verify = await pag({ DATABASE_URL: postgres.url, AUDIT_SIGNING_KEY: signingKey }, 'audit', 'verify');
  const rows = Number(
    (await db.$queryRaw<{ rows: bigint }[]>`SELECT count(*) AS rows FROM audit.records`)[0]?.rows,
  );
  expect({ code: verify.code, last: verify.lines.at(-1) }).toEqual({ code: 0, last: `ok ${rows} rows` });
}

describe('the audit log with NATS survives', () => {
  test('kill -9 of the audit service in the middle of 5,000 requests, and its restart', async () => {
    const total = 5_000;
    let killed: Promise<ServiceProcess> | undefined;
    const result = await burst({
      url,
      total,
      concurrency: CONCURRENCY,
      onAnswer: (answered) => {
        if (answered !== Math.floor(total / 3)) return;
        // The burst goes on while the service is dead and while it starts again.
        killed = (async () => {
          await audit?.stop('SIGKILL');
          audit = await startAudit();
          return audit;
        })();
      },
    });
    await killed;
    expect(killed).toBeDefined();
    const answered = result.answers.filter((answer) => !answer.unrecorded);
    // JetStream took every event while the service was down: nothing was refused.
    expect({ answered: answered.length, failed: result.failed }).toEqual({ answered: total, failed: 0 });
    await expectOneRowPerAnswer(result.answers);
  }, 60_000);

  test('kill -9 of nats-server in the middle of a burst, and its restart on the same port and store', async () => {
    const total = 3_000;
    let restarted: Promise<void> | undefined;
    const during = await burst({
      url,
      total,
      concurrency: CONCURRENCY,
      onAnswer: (answered) => {
        if (answered === Math.floor(total / 3)) restarted = nats.restart('SIGKILL');
      },
    });
    await restarted;
    expect(restarted).toBeDefined();
    // Both clients find the server again on their own; then a burst after the restart.
    await eventually(() => gatewayBus.isReady(), { what: 'the gateway reconnects', timeoutMs: 20_000 });
    const after = await burst({ url, total: 500, concurrency: CONCURRENCY });
    expect(after.answers.filter((answer) => answer.status === 200)).toHaveLength(500);
    const answers = [...during.answers, ...after.answers];
    expect(during.failed + after.failed).toBe(0);
    await expectOneRowPerAnswer(answers);
  }, 60_000);
});
