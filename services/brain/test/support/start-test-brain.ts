/**
 * For the brain's integration tests: a real PostgreSQL with the brain's migrations, a broker (the
 * in-memory one, or a real nats-server when the test run chose it: startTestBroker) with the
 * brain on one connection, a fake auth service (auth.account.get) on another and the test's own
 * connection to ask from, as the gateway would (identity in headers). A client on
 * the same database puts in what no endpoint writes yet (personas, documents) and looks at what
 * rests there. close() stops all of it; the database by the pid the helper got.
 */
import type { DispatchRequest } from '@pag/contracts';
import { MessageHeaders } from '@pag/contracts';
import type { Bus, Logger } from '@pag/kit';
import { applyMigrations, createLogger, createMetrics, createPrismaClient } from '@pag/kit';
import type { TestBroker, TestPostgres } from '@pag/kit/testing';
import { startTestBroker, startTestPostgres } from '@pag/kit/testing';
import type { BrainConfig } from '../../src/config.ts';
import { brainDatabase } from '../../src/database.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import type { RunningBrain } from '../../src/service.ts';
import { startBrain } from '../../src/service.ts';
import { FakeAuth } from './fake-auth.ts';

export interface Caller {
  accountId?: string;
  agentId?: string;
  /** Space-separated, as in the pag-scopes header; `full` unless given. */
  scopes?: string;
}

export interface TestBrain extends AsyncDisposable {
  readonly brain: RunningBrain;
  readonly auth: FakeAuth;
  readonly db: PrismaClient;
  readonly postgres: TestPostgres;
  /** The broker everything here is connected to (memory or nats, as the test run chose). */
  readonly broker: TestBroker;
  /** The test's own connection to the broker (the gateway's place). */
  readonly bus: Bus;
  readonly config: BrainConfig;
  /** Asks the brain as the gateway does: a DispatchRequest with the caller in headers. */
  ask<R = unknown>(subject: string, caller: Caller, request?: Partial<DispatchRequest>): Promise<R>;
  /** Another brain replica on the same database and broker (closed with the rest). */
  startReplica(): Promise<RunningBrain>;
  close(): Promise<void>;
}

const logger: Logger = createLogger({ service: 'brain-test', level: 'silent' });

export function testConfig(databaseUrl: string): BrainConfig {
  return {
    opsPort: 0,
    host: '127.0.0.1',
    databaseUrl,
    natsUrl: undefined,
    logLevel: 'silent',
    // Long enough for 12 concurrent reads to reach both replicas on a loaded machine before the
    // test releases the held answers (300 ms tripped at a load average of 14); the timeout test
    // waits this long once.
    authTimeoutMs: 2_000,
  };
}

export function callerHeaders(caller: Caller): Record<string, string> {
  const headers: Record<string, string> = {
    [MessageHeaders.requestId]: `req-${Math.random().toString(36).slice(2)}`,
    [MessageHeaders.scopes]: caller.scopes ?? 'full',
  };
  if (caller.accountId !== undefined) headers[MessageHeaders.accountId] = caller.accountId;
  if (caller.agentId !== undefined) headers[MessageHeaders.agentId] = caller.agentId;
  return headers;
}

export async function startTestBrain(): Promise<TestBrain> {
  const postgres = await startTestPostgres();
  const closers: (() => Promise<void>)[] = [() => postgres.stop()];
  const close = async () => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    // Closes every connection below once the services on them have closed (closers run in reverse).
    const broker = await startTestBroker({ logger });
    closers.push(() => broker.close());
    const bus = await broker.connect('gateway');
    await applyMigrations({ databaseUrl: postgres.url, ...brainDatabase });
    const db = createPrismaClient(PrismaClient, { databaseUrl: postgres.url, schema: brainDatabase.schema });
    closers.push(() => db.$disconnect());
    const config = testConfig(postgres.url);
    const metrics = createMetrics({ defaultMetrics: false });
    const startReplica = async () => {
      const replicaBus = await broker.connect('brain');
      const replica = await startBrain({ config, bus: replicaBus, logger, metrics });
      closers.push(() => replica.close());
      return replica;
    };
    const authBus = await broker.connect('auth');
    const auth = await FakeAuth.start(authBus);
    closers.push(() => auth.close());
    const brain = await startReplica();
    return {
      brain,
      auth,
      db,
      postgres,
      broker,
      bus,
      config,
      ask: (subject, caller, request = {}) =>
        bus.request(
          subject,
          { params: {}, query: {}, body: null, ...request },
          {
            timeoutMs: 5_000,
            headers: callerHeaders(caller),
          },
        ),
      startReplica,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
