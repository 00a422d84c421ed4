/**
 * The ingest: the durable consumer `audit-writer` on the AUDIT stream, in batches (kit's
 * consumeBatch: a batch is every message that arrived while the previous one committed, up to
 * AUDIT_BATCH_MAX). Each batch is one append, one transaction; resolving acknowledges its
 * messages, so they are acknowledged only after COMMIT. A failed append throws: every message of
 * the batch is redelivered after ackWaitMs, and the append's deduplication by event id stores
 * each once. Replicas share the consumer; the append lock keeps their batches in one chain.
 *
 * A message that is not a storable audit event would fail its batch on every redelivery and
 * stop the stream: it is logged at error level (stream seq, subject, what is wrong), counted in
 * audit_events_rejected_total, and acknowledged without being stored.
 */
import { AuditStream } from '@pag/contracts';
import type { Bus, Logger, Subscription } from '@pag/kit';
import type { AuditMetrics } from '../audit-metrics.ts';
import type { StorableEvent } from '../chain/storable-event.ts';
import { checkAuditEvent } from '../chain/storable-event.ts';
import type { AuditLog } from '../store/audit-log.ts';

export interface IngestOptions {
  bus: Bus;
  log: Pick<AuditLog, 'appendChecked'>;
  metrics: AuditMetrics;
  logger: Logger;
  maxBatch: number;
  /** Redelivery delay of a failed batch (or one a crashed replica held); INGEST_ACK_WAIT_MS unless given. */
  ackWaitMs?: number;
}

/**
 * How long a delivered batch may stay unacknowledged before it is delivered again: 10 s, not the
 * bus's 30 s, so the events a crashed replica held are stored sooner; a batch of AUDIT_BATCH_MAX
 * commits in well under a second (docs/benchmarks.md: p99 about 0.1 s for 500).
 */
export const INGEST_ACK_WAIT_MS = 10_000;

export async function startIngest(options: IngestOptions): Promise<Subscription> {
  const { bus, log, metrics, logger } = options;
  // Idempotent; the publishers create it too. The consumer needs it before it can start.
  await bus.ensureStream({ name: AuditStream.name, subjects: [...AuditStream.subjects] });
  return bus.consumeBatch<unknown>(
    AuditStream.name,
    AuditStream.consumer,
    async (messages) => {
      const events: StorableEvent[] = [];
      for (const message of messages) {
        const check = checkAuditEvent(message.data);
        if (check.ok) {
          events.push(check.event);
          continue;
        }
        logger.error(
          { streamSeq: message.seq, subject: message.subject, problem: check.problem },
          'audit event rejected: not a storable audit event; acknowledged, not stored',
        );
        metrics.rejected.inc();
      }
      if (events.length > 0) {
        const result = await log.appendChecked(events);
        metrics.committed.inc(result.stored);
        metrics.headSeq.set(result.head.seq);
      }
      metrics.batchSize.observe(messages.length);
    },
    { maxBatch: options.maxBatch, ackWaitMs: options.ackWaitMs ?? INGEST_ACK_WAIT_MS },
  );
}
