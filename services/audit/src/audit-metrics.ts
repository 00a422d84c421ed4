/**
 * The audit service's metrics, on the process's registry (one set per registry: the embedded
 * stack and tests start several replicas on one).
 */
import type { Metrics } from '@pag/kit';
import { Counter, Gauge, Histogram } from 'prom-client';

export interface AuditMetrics {
  /** Rows committed to the log. */
  readonly committed: Counter;
  /** Events per committed batch (duplicates included). */
  readonly batchSize: Histogram;
  /** Events on the stream that could not be stored (acknowledged and dropped). */
  readonly rejected: Counter;
  /** The newest seq this process committed or saw as the head. */
  readonly headSeq: Gauge;
}

function once<M>(metrics: Metrics, name: string, make: () => M): M {
  return (metrics.registry.getSingleMetric(name) as M | undefined) ?? make();
}

export function auditMetrics(metrics: Metrics): AuditMetrics {
  const registers = [metrics.registry];
  return {
    committed: once(
      metrics,
      'audit_events_committed_total',
      () =>
        new Counter({
          name: 'audit_events_committed_total',
          help: 'Audit events committed to the log.',
          registers,
        }),
    ),
    batchSize: once(
      metrics,
      'audit_batch_size',
      () =>
        new Histogram({
          name: 'audit_batch_size',
          help: 'Audit events per ingest batch (one transaction).',
          buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000],
          registers,
        }),
    ),
    rejected: once(
      metrics,
      'audit_events_rejected_total',
      () =>
        new Counter({
          name: 'audit_events_rejected_total',
          help: 'Events on the AUDIT stream that are not storable audit events (logged, acknowledged, not stored).',
          registers,
        }),
    ),
    headSeq: once(
      metrics,
      'audit_head_seq',
      () =>
        new Gauge({
          name: 'audit_head_seq',
          help: 'The sequence number of the newest row of the log.',
          registers,
        }),
    ),
  };
}
