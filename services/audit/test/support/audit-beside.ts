/**
 * The audit service beside another service's test, on that test's PostgreSQL and bus (the root
 * tests of the read side start it next to the auth service): the audit migrations applied as the
 * superuser, the service connected as its own login role. `writer` appends rows as the ingest
 * would. close() stops the service and the writer (the database and the bus are the caller's).
 */
import type { Bus } from '@pag/kit';
import { applyMigrations, createLogger, createMetrics } from '@pag/kit';
import { loadAuditConfig } from '../../src/config.ts';
import { auditDatabase } from '../../src/database.ts';
import type { RunningAudit } from '../../src/service.ts';
import { startAudit } from '../../src/service.ts';
import type { OpenAuditLog } from '../../src/store/open-audit-log.ts';
import { openAuditLog } from '../../src/store/open-audit-log.ts';
import { createAuditLogin, newSigningKey } from './audit-login.ts';

export interface AuditBeside extends AsyncDisposable {
  readonly writer: OpenAuditLog;
  /** Stops the service (the writer stays), e.g. to see its callers without it. */
  stopService(): Promise<void>;
  close(): Promise<void>;
}

export async function startAuditBeside(options: { superuserUrl: string; bus: Bus }): Promise<AuditBeside> {
  await applyMigrations({ databaseUrl: options.superuserUrl, ...auditDatabase });
  const serviceUrl = await createAuditLogin(options.superuserUrl);
  const config = loadAuditConfig({
    DATABASE_URL: serviceUrl,
    AUDIT_SIGNING_KEY: newSigningKey(),
    OPS_PORT: '0',
    LOG_LEVEL: 'silent',
  });
  const logger = createLogger({ service: 'audit-test', level: 'silent' });
  let service: RunningAudit | undefined = await startAudit({
    config,
    bus: options.bus,
    logger,
    metrics: createMetrics({ defaultMetrics: false }),
  });
  const writer = openAuditLog({ databaseUrl: serviceUrl });
  const stopService = async () => {
    await service?.close();
    service = undefined;
  };
  const close = async () => {
    await stopService();
    await writer.close();
  };
  return { writer, stopService, close, [Symbol.asyncDispose]: close };
}
