/**
 * For the brain's integration tests, on testkit's startService: a real PostgreSQL with the
 * brain's migrations, a broker (the in-memory one, or a real nats-server when the test run chose
 * it) with the brain on one connection, a fake auth service (auth.account.get) on another and the test's own
 * connection to ask from, as the gateway would (identity in headers); the owner's endpoints are
 * asked on the fake auth's connection, as the auth service would. A client on
 * the same database puts in what no endpoint writes yet (personas, documents) and looks at what
 * rests there. close() stops all of it; the database by the pid the helper got.
 */
import type { AnyEndpoint, DispatchRequest, EndpointInput, EndpointReply } from '@pag/contracts';
import { MessageHeaders } from '@pag/contracts';
import type { Bus } from '@pag/kit';
import { createPrismaClient, requestEndpoint } from '@pag/kit';
import type { TestBroker, TestPostgres } from '@pag/kit/testing';
import { startService } from '@pag/testkit';
import type { BrainConfig } from '../../src/config.ts';
import { brainService } from '../../src/definition.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import type { RunningBrain } from '../../src/service.ts';
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
  /** Asks an owner endpoint as the auth service does (its connection); the reply checked. */
  askOwner<E extends AnyEndpoint>(endpoint: E, input: EndpointInput<E>): Promise<EndpointReply<E>>;
  /** The auth service's connection, to send what the contracts would refuse to type. */
  readonly authBus: Bus;
  /** Another brain replica on the same database and broker (closed with the rest). */
  startReplica(): Promise<RunningBrain>;
  close(): Promise<void>;
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

/** `env` adds to the brain's environment (chat settings, for one). */
export async function startTestBrain(env: Record<string, string> = {}): Promise<TestBrain> {
  // Long enough for 40 concurrent reads to reach both replicas on a loaded machine before the
  // test releases the held answers (300 ms tripped at a load average of 14); the timeout test
  // waits this long once.
  const started = await startService(brainService, { env: { AUTH_TIMEOUT_MS: '2000', ...env } });
  try {
    const authBus = await started.connect('auth');
    const auth = await FakeAuth.start(authBus);
    const db = createPrismaClient(PrismaClient, {
      databaseUrl: started.postgres.url,
      schema: brainService.database.schema,
    });
    const close = async () => {
      await db.$disconnect();
      await auth.close();
      await started.close();
    };
    const { bus } = started;
    return {
      brain: started.service,
      auth,
      db,
      postgres: started.postgres,
      broker: started.broker,
      bus,
      config: started.config,
      ask: (subject, caller, request = {}) =>
        bus.request(
          subject,
          { params: {}, query: {}, body: null, ...request },
          { timeoutMs: 5_000, headers: callerHeaders(caller) },
        ),
      askOwner: (endpoint, input) => requestEndpoint(authBus, endpoint, input, { timeoutMs: 5_000 }),
      authBus,
      startReplica: () => started.startReplica(),
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await started.close();
    throw error;
  }
}
