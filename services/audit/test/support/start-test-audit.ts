/**
 * For the audit service's integration tests, on testkit's startService: a real PostgreSQL with
 * the audit migrations (applied as the superuser, who owns the tables), the service connected as
 * its own login role (audit-login.ts), on the broker the test run chose. `db` is a client of the
 * tables' owner (the superuser), to look at the rows and to tamper with them as an attacker with
 * full database access would. close() stops all of it.
 */
import type { Bus, Env } from '@pag/kit';
import { createPrismaClient } from '@pag/kit';
import type { TestBroker, TestPostgres } from '@pag/kit/testing';
import { startService } from '@pag/testkit';
import type { AuditConfig } from '../../src/config.ts';
import { auditService } from '../../src/definition.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';
import type { RunningAudit } from '../../src/service.ts';
import { createAuditLogin, newSigningKey } from './audit-login.ts';

export interface TestAudit extends AsyncDisposable {
  readonly audit: RunningAudit;
  /** The tables' owner (superuser). */
  readonly db: PrismaClient;
  readonly postgres: TestPostgres;
  readonly broker: TestBroker;
  /** The test's own connection to the broker. */
  readonly bus: Bus;
  readonly config: AuditConfig;
  /** Another replica on the same database and broker (closed with the rest). */
  startReplica(env?: Env): Promise<RunningAudit>;
  close(): Promise<void>;
}

export async function startTestAudit(options: { env?: Env } = {}): Promise<TestAudit> {
  const started = await startService(auditService, {
    env: { AUDIT_SIGNING_KEY: newSigningKey(), ...options.env },
    serviceDatabaseUrl: (postgres) => createAuditLogin(postgres.url),
  });
  const db = createPrismaClient(PrismaClient, {
    databaseUrl: started.postgres.url,
    schema: auditService.database.schema,
  });
  const close = async () => {
    await db.$disconnect();
    await started.close();
  };
  return {
    audit: started.service,
    db,
    postgres: started.postgres,
    broker: started.broker,
    bus: started.bus,
    config: started.config,
    startReplica: (env) => started.startReplica(env),
    close,
    [Symbol.asyncDispose]: close,
  };
}
