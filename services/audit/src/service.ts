/**
 * The audit service as a unit that main.ts and the embedded stack both start, on an existing bus,
 * logger and metrics registry: the database client, the check that its role may only read and
 * append (store/privilege-guard.ts), then its answers on the bus (endpoints.ts). close() stops the
 * subscriptions (handlers already running finish) and then disconnects the database.
 */
import type { ServiceDeps } from '@pag/kit';
import { createPrismaClient, serveEndpoints } from '@pag/kit';
import type { AuditConfig } from './config.ts';
import { auditDatabase } from './database.ts';
import { auditEndpoints } from './endpoints.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { auditStores } from './store/audit-stores.ts';
import { assertAppendOnlyRole } from './store/privilege-guard.ts';

/** The config, bus, logger and metrics registry it starts on (kit's ServiceDeps). */
export type AuditDeps = ServiceDeps<AuditConfig>;

export interface RunningAudit extends AsyncDisposable {
  close(): Promise<void>;
}

export async function startAudit(deps: AuditDeps): Promise<RunningAudit> {
  const { config, bus, logger, metrics } = deps;
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: config.databaseUrl,
    schema: auditDatabase.schema,
    logger,
  });
  try {
    await assertAppendOnlyRole(prisma);
    const stores = auditStores(prisma);
    const subscriptions = await serveEndpoints(
      bus,
      { service: 'audit', deps: { stores }, logger, metrics },
      auditEndpoints,
    );
    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        await Promise.all(subscriptions.map((subscription) => subscription.close()));
        await prisma.$disconnect();
      })();
      return closing;
    };
    return { close, [Symbol.asyncDispose]: close };
  } catch (error) {
    await prisma.$disconnect();
    throw error;
  }
}
