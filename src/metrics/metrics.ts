import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { FastHistogram } from './fast-histogram';

/**
 * Every Prometheus series of the service (docs/metrics.md), on a registry of this runtime (no
 * global default registry: two runtimes in one process, as in tests, keep separate counts).
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'gateway_' });
  const ms = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
  const r = { registers: [registry] };
  return {
    registry,
    httpDuration: new FastHistogram({
      ...r,
      name: 'gateway_http_request_duration_seconds',
      help: 'HTTP requests served by the api, by route template, method and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: ms,
    }),
    proxyUpstreamDuration: new FastHistogram({
      ...r,
      name: 'gateway_proxy_upstream_duration_seconds',
      help: 'Time from forwarding a proxied call to the end of the upstream response, by provider and status',
      labelNames: ['provider', 'status'] as const,
      buckets: ms,
    }),
    proxyAddedLatency: new FastHistogram({
      ...r,
      name: 'gateway_proxy_added_latency_seconds',
      help: 'Time the gateway adds to a proxied call (its own work before forwarding and after the upstream answered)',
      labelNames: ['provider'] as const,
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1],
    }),
    requestLogQueueDepth: new Gauge({
      ...r,
      name: 'gateway_request_log_queue_depth',
      help: 'Request rows waiting to be written',
    }),
    requestLogFlushDuration: new Histogram({
      ...r,
      name: 'gateway_request_log_flush_duration_seconds',
      help: 'Duration of one request-log batch transaction',
      buckets: ms,
    }),
    requestLogRows: new Counter({
      ...r,
      name: 'gateway_request_log_rows_total',
      help:
        'Request rows by outcome: stored, stored_alone (after its batch failed), ' +
        'minimal (stored without bodies after failing alone), replayed (from the journal at start), ' +
        'dropped (refused even minimal), unjournaled (journal write failed; kept in memory only)',
      labelNames: ['outcome'] as const,
    }),
    ingestOperations: new Counter({
      ...r,
      name: 'gateway_ingest_operations_total',
      help:
        'Trace ingest operations by kind (trace.create, span.update, ...), ' +
        'source (sdk, otlp) and outcome (ok, error)',
      labelNames: ['op', 'source', 'outcome'] as const,
    }),
    outboxBacklog: new Gauge({ ...r, name: 'gateway_outbox_backlog', help: 'Events in the outbox not yet dispatched' }),
    outboxLag: new Gauge({
      ...r,
      name: 'gateway_outbox_lag_seconds',
      help: 'Age of the oldest undispatched outbox event (0 when empty)',
    }),
    webhookAttempts: new Counter({
      ...r,
      name: 'gateway_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (delivered, failed, interrupted) and kind (delivery, test, recovery)',
      labelNames: ['outcome', 'kind'] as const,
    }),
    workflowStarts: new Counter({
      ...r,
      name: 'gateway_temporal_workflow_starts_total',
      help: 'Temporal workflow starts by workflow type and outcome (started, already_started, failed)',
      labelNames: ['workflow', 'outcome'] as const,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
