/**
 * Prometheus metrics: one registry per process (so several services can share a process in
 * embedded mode without clashing names), the process defaults, and the HTTP request histogram
 * every HTTP service records into with its own `service` label.
 */
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export type HttpLabels = 'service' | 'method' | 'route' | 'status';

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequestDuration: Histogram<HttpLabels>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const httpRequestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Duration of HTTP requests by service, route template and status.',
    labelNames: ['service', 'method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return { registry, httpRequestDuration };
}
