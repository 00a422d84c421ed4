/**
 * For the trigger service's integration tests, on testkit's startService: a real PostgreSQL with
 * the trigger migrations, a broker (the in-memory one, or a real nats-server when the test run
 * chose it) with the service on one connection, a stand-in of auth.agents.grant on the auth
 * connection (owner endpoints are asked there, as the auth service would), the test's own
 * connection to ask from as the gateway would (identity in headers), and the AUDIT stream read
 * into `audit`. The scheduler's tick is an hour unless `env` says otherwise, and its first pass is
 * over before the test begins, so queued runs stay queued for what these tests look at (the
 * scheduler's own tests drive it). close() stops it all.
 */
import type {
  ActionAuditEvent,
  AnyEndpoint,
  DispatchRequest,
  EndpointInput,
  EndpointReply,
} from '@pag/contracts';
import { ActionAuditEvent as ActionAuditEventSchema, AuditStream, MessageHeaders } from '@pag/contracts';
import type { Bus } from '@pag/kit';
import { createPrismaClient, requestEndpoint } from '@pag/kit';
import { startService } from '@pag/testkit';
import { triggerService } from '../../src/definition.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import { FakeGrants } from './fake-grants.ts';

export interface Caller {
  accountId?: string;
  agentId?: string;
  /** Space-separated, as in the pag-scopes header; `full` unless given. */
  scopes?: string;
  requestId?: string;
}

export interface TestTrigger extends AsyncDisposable {
  readonly grants: FakeGrants;
  readonly db: PrismaClient;
  readonly databaseUrl: string;
  /** The test's own connection (the gateway's place). */
  readonly bus: Bus;
  /** Every action event published on the AUDIT stream, in order. */
  readonly audit: ActionAuditEvent[];
  /** Asks as the gateway does: a DispatchRequest with the caller in headers. */
  ask<R = unknown>(subject: string, caller: Caller, request?: Partial<DispatchRequest>): Promise<R>;
  /** Asks an owner endpoint as the auth service does (with `requestId` when given); the reply checked. */
  askOwner<E extends AnyEndpoint>(
    endpoint: E,
    input: EndpointInput<E>,
    requestId?: string,
  ): Promise<EndpointReply<E>>;
  /** Resolves once an audit event of `requestId` arrived. */
  auditOf(requestId: string): Promise<ActionAuditEvent>;
  close(): Promise<void>;
}

export function callerHeaders(caller: Caller): Record<string, string> {
  const headers: Record<string, string> = {
    [MessageHeaders.requestId]: caller.requestId ?? `req-${Math.random().toString(36).slice(2)}`,
    [MessageHeaders.scopes]: caller.scopes ?? 'full',
  };
  if (caller.accountId !== undefined) headers[MessageHeaders.accountId] = caller.accountId;
  if (caller.agentId !== undefined) headers[MessageHeaders.agentId] = caller.agentId;
  return headers;
}

const HOUR_MS = 3_600_000;

export async function startTestTrigger(env: Record<string, string> = {}): Promise<TestTrigger> {
  const started = await startService(triggerService, {
    env: {
      TRIGGER_TICK_MS: String(HOUR_MS),
      TRIGGER_LATE_GRACE_MS: String(HOUR_MS),
      TRIGGER_RUN_LEASE_MS: String(3 * HOUR_MS),
      ...env,
    },
  });
  try {
    // The scheduler's first pass starts with the service; once it is over, the next is an hour
    // away, so nothing the test queues is claimed behind its back.
    await started.service.scheduler.tick();
    const authBus = await started.connect('auth');
    const grants = await FakeGrants.start(authBus);
    const db = createPrismaClient(PrismaClient, {
      databaseUrl: started.postgres.url,
      schema: triggerService.database.schema,
    });
    const { bus } = started;
    const audit: ActionAuditEvent[] = [];
    const waiters = new Map<string, (event: ActionAuditEvent) => void>();
    await bus.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
    await bus.consume<unknown>(AuditStream.name, 'trigger-audit-test', async (message) => {
      const event = ActionAuditEventSchema.parse(message.data);
      audit.push(event);
      waiters.get(event.requestId)?.(event);
    });
    const close = async () => {
      await db.$disconnect();
      await grants.close();
      await started.close();
    };
    return {
      grants,
      db,
      databaseUrl: started.postgres.url,
      bus,
      audit,
      ask: (subject, caller, request = {}) =>
        bus.request(
          subject,
          { params: {}, query: {}, body: null, ...request },
          { timeoutMs: 5_000, headers: callerHeaders(caller) },
        ),
      askOwner: (endpoint, input, requestId) =>
        requestEndpoint(authBus, endpoint, input, {
          timeoutMs: 5_000,
          ...(requestId === undefined ? {} : { headers: { [MessageHeaders.requestId]: requestId } }),
        }),
      auditOf: (requestId) => {
        const seen = audit.find((event) => event.requestId === requestId);
        if (seen !== undefined) return Promise.resolve(seen);
        return new Promise((resolve) => waiters.set(requestId, resolve));
      },
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await started.close();
    throw error;
  }
}
