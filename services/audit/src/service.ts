/**
 * The audit service as a unit that main.ts and the embedded stack both start, on an existing bus,
 * logger and metrics registry: the database client, the check that its role may only read and
 * append (store/privilege-guard.ts), the checkpoints (every AUDIT_CHECKPOINT_INTERVAL_MS when the
 * head moved), retention when AUDIT_RETENTION_DAYS is set, the ingest (the AUDIT stream's durable
 * consumer, ingest/audit-ingest.ts) and its answers on the bus (endpoints.ts).
 *
 * close(), in order: stop answering, stop the ingest (its running batch commits), stop retention,
 * then write the last checkpoint (nothing appends any more), then disconnect the database.
 */
import type { PurgeJob, ServiceDeps } from '@pag/kit';
import { closeSubscriptions, createPrismaClient, serveEndpoints, startPurgeJob } from '@pag/kit';
import { auditMetrics } from './audit-metrics.ts';
import { startCheckpointer } from './checkpoints/checkpointer.ts';
import { signingKeyFromSeed } from './checkpoints/signing-keys.ts';
import type { AuditConfig } from './config.ts';
import { auditDatabase } from './database.ts';
import { auditEndpoints } from './endpoints.ts';
import { PrismaClient } from './generated/prisma/client.ts';
import { startIngest } from './ingest/audit-ingest.ts';
import { retentionTask } from './retention/retention-task.ts';
import { auditStores } from './store/audit-stores.ts';
import { assertAppendOnlyRole } from './store/privilege-guard.ts';

/** The config, bus, logger and metrics registry it starts on (kit's ServiceDeps). */
export type AuditDeps = ServiceDeps<AuditConfig>;

export interface RunningAudit extends AsyncDisposable {
  close(): Promise<void>;
}

/** How often retention looks for whole old segments. */
const RETENTION_INTERVAL_MS = 10 * 60_000;

export async function startAudit(deps: AuditDeps): Promise<RunningAudit> {
  const { config, bus, logger, metrics } = deps;
  const prisma = createPrismaClient(PrismaClient, {
    databaseUrl: config.databaseUrl,
    schema: auditDatabase.schema,
    logger,
  });
  const closers: (() => Promise<void>)[] = [() => prisma.$disconnect()];
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      for (const closer of closers.splice(0).reverse()) await closer();
    })();
    return closing;
  };
  try {
    await assertAppendOnlyRole(prisma);
    const stores = auditStores(prisma);
    const key = signingKeyFromSeed(config.signingKey);
    const measures = auditMetrics(metrics);
    const head = async () => {
      const current = await stores.log.head();
      measures.headSeq.set(current.seq);
      return current;
    };
    await head();
    const checkpointer = startCheckpointer({
      head,
      checkpoints: stores.checkpoints,
      key,
      intervalMs: config.checkpointIntervalMs,
      logger,
    });
    closers.push(() => checkpointer.close());
    if (config.retentionDays > 0) {
      const retention: PurgeJob = startPurgeJob({
        intervalMs: RETENTION_INTERVAL_MS,
        logger,
        tasks: [
          retentionTask({
            retentionDays: config.retentionDays,
            segmentRows: config.segmentRows,
            store: stores.retention,
            checkpoints: stores.checkpoints,
            head,
            key,
          }),
        ],
      });
      closers.push(() => retention.stop());
      void retention.runOnce();
    }
    const ingest = await startIngest({
      bus,
      log: stores.log,
      metrics: measures,
      logger,
      maxBatch: config.batchMax,
    });
    closers.push(() => ingest.close());
    const subscriptions = await serveEndpoints(
      bus,
      { service: 'audit', deps: { stores }, logger, metrics },
      auditEndpoints,
    );
    closers.push(() => closeSubscriptions(subscriptions));
    logger.info({ keyId: key.keyId, retentionDays: config.retentionDays }, 'audit log started');
    return { close, [Symbol.asyncDispose]: close };
  } catch (error) {
    await close();
    throw error;
  }
}
