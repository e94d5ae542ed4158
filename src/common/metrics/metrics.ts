import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { COMPILE_JOB_STATUSES } from 'src/modules/memories/compile-job.entity';
import { WEBHOOK_EVENT_STATUSES } from 'src/modules/webhooks/webhook-event.entity';

/**
 * The process's one Prometheus registry and every instrument the service reports. Instruments
 * are module-level so a hook in any service is one line (`metrics.x.inc(...)`) without
 * injecting anything; GET /metrics (src/modules/metrics) renders this registry.
 */
export const registry = new Registry();

/** Where database-backed gauges read from; set by MetricsModule while an app is running. */
export interface MetricsSources {
  /** The pg pool (PGlite: the pool of one connection to the embedded server). */
  pool(): { totalCount: number; idleCount: number; waitingCount: number; options?: { max?: number } } | null;
  /** Rows of compile_jobs and webhook_events per status, read at scrape time. */
  queueCounts(): Promise<{ compile_jobs: Record<string, number>; webhook_events: Record<string, number> }>;
}

let sources: MetricsSources | null = null;

export function setMetricsSources(next: MetricsSources | null): void {
  sources = next;
}

export function metricsSources(): MetricsSources | null {
  return sources;
}

let defaultsCollected = false;

/** Process metrics (CPU, memory, event loop lag, GC, handles); once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: registry });
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Queue gauges share one database read per scrape. */
let queueRead: Promise<Awaited<ReturnType<MetricsSources['queueCounts']>> | null> | null = null;
function readQueues(): Promise<Awaited<ReturnType<MetricsSources['queueCounts']>> | null> {
  if (!queueRead) {
    const src = sources;
    queueRead = (src ? src.queueCounts().catch(() => null) : Promise.resolve(null)).finally(() => {
      // Cleared on the next tick: both gauges of one scrape share the read, the next scrape reads again.
      setImmediate(() => (queueRead = null));
    });
  }
  return queueRead;
}

export const metrics = {
  httpRequests: new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  rateLimitRejections: new Counter({
    name: 'memory_rate_limit_rejections_total',
    help: 'Requests refused with 429 rate_limited.',
    registers: [registry],
  }),
  compiles: new Counter({
    name: 'memory_compiles_total',
    help: 'Compiles by mode (sync: POST /v1/memories/compile; async: a compile job) and outcome (completed, failed, lost: the job changed hands).',
    labelNames: ['mode', 'status'] as const,
    registers: [registry],
  }),
  compileDuration: new Histogram({
    name: 'memory_compile_duration_seconds',
    help: 'Duration of compiles by mode and outcome.',
    labelNames: ['mode', 'status'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [registry],
  }),
  compileJobs: new Gauge({
    name: 'memory_compile_jobs',
    help: 'Compile jobs stored, by status (read from the database at scrape time).',
    labelNames: ['status'] as const,
    // Every worker reads the same rows: the cluster view takes one, not their sum.
    aggregator: 'max',
    registers: [registry],
    async collect() {
      const counts = await readQueues();
      if (!counts) return;
      for (const status of COMPILE_JOB_STATUSES) this.set({ status }, counts.compile_jobs[status] ?? 0);
    },
  }),
  webhookDeliveries: new Counter({
    name: 'memory_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (failed, will retry), dead_letter (failed for the last time).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  webhookDuration: new Histogram({
    name: 'memory_webhook_delivery_duration_seconds',
    help: 'Duration of webhook POSTs by result: 2xx, 3xx, 4xx, 5xx, timeout, connection_error, aborted (shutdown).',
    labelNames: ['result'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  }),
  webhookEvents: new Gauge({
    name: 'memory_webhook_events',
    help: 'Webhook outbox rows by status; dead_letter is the dead-letter queue (read from the database at scrape time).',
    labelNames: ['status'] as const,
    // Every worker reads the same rows: the cluster view takes one, not their sum.
    aggregator: 'max',
    registers: [registry],
    async collect() {
      const counts = await readQueues();
      if (!counts) return;
      for (const status of WEBHOOK_EVENT_STATUSES) this.set({ status }, counts.webhook_events[status] ?? 0);
    },
  }),
  contextTokens: new Histogram({
    name: 'memory_context_tokens',
    help: 'token_estimate of assembled context bundles.',
    buckets: [50, 100, 250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000],
    registers: [registry],
  }),
  receipts: new Counter({
    name: 'memory_receipts_total',
    help: 'Context and handoff receipts by outcome: written, failed (the bundle was still returned, receipt_emitted false).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  policyDenials: new Counter({
    name: 'memory_policy_denials_total',
    help: 'Memories a policy bundle denied to a caller, by mode: enforce (left out) or log_only (recorded only).',
    labelNames: ['mode'] as const,
    registers: [registry],
  }),
  modelRequests: new Counter({
    name: 'memory_model_requests_total',
    help: 'Requests to model servers (retries included in one request) by kind (chat, embeddings) and outcome: ok, timeout, connection, rate_limited, server_error, rejected, not_configured, invalid_response.',
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  }),
  modelRequestDuration: new Histogram({
    name: 'memory_model_request_duration_seconds',
    help: 'Duration of requests to model servers, waits for a concurrency slot and retries included, by kind.',
    labelNames: ['kind'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  }),
  mcpToolCalls: new Counter({
    name: 'memory_mcp_tool_calls_total',
    help: 'MCP tool calls by tool, transport (http, stdio) and outcome (ok, error).',
    labelNames: ['tool', 'transport', 'outcome'] as const,
    registers: [registry],
  }),
  ingestGroupSize: new Histogram({
    name: 'memory_ingest_group_size',
    help: 'Single-episode requests (POST /v1/episodes) written by one group commit.',
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [registry],
  }),
  dbReads: new Counter({
    name: 'memory_db_reads_total',
    help: 'Reads that may use a read replica, by where they ran (replica, primary) and why: replica, no_replica (none configured healthy), unreplayed_write (read-your-writes), replica_failed (run again on the primary).',
    labelNames: ['target', 'reason'] as const,
    registers: [registry],
  }),
  dbReplicaUp: new Gauge({
    name: 'memory_db_replica_up',
    help: 'Read replica serving reads (1), or skipped as down or lagging (0).',
    labelNames: ['replica'] as const,
    // Cluster view: up only while every worker routes reads to it.
    aggregator: 'min',
    registers: [registry],
  }),
  dbReplicaLag: new Gauge({
    name: 'memory_db_replica_lag_seconds',
    help: 'Estimated replay lag of a read replica behind the primary.',
    labelNames: ['replica'] as const,
    aggregator: 'max',
    registers: [registry],
  }),
  // The pool gauges wait for the scrape's own queue read, so it never counts itself as busy.
  dbPoolTotal: new Gauge({
    name: 'memory_db_pool_connections',
    help: 'Connections open in the database pool.',
    registers: [registry],
    async collect() {
      await readQueues();
      this.set(sources?.pool()?.totalCount ?? 0);
    },
  }),
  dbPoolIdle: new Gauge({
    name: 'memory_db_pool_idle_connections',
    help: 'Idle connections in the database pool.',
    registers: [registry],
    async collect() {
      await readQueues();
      this.set(sources?.pool()?.idleCount ?? 0);
    },
  }),
  dbPoolWaiting: new Gauge({
    name: 'memory_db_pool_waiting_requests',
    help: 'Queries waiting for a free connection.',
    registers: [registry],
    async collect() {
      await readQueues();
      this.set(sources?.pool()?.waitingCount ?? 0);
    },
  }),
  dbPoolMax: new Gauge({
    name: 'memory_db_pool_max_connections',
    help: 'Configured pool size (1 on the embedded engine).',
    registers: [registry],
    collect() {
      this.set(sources?.pool()?.options?.max ?? 0);
    },
  }),
};

/** Seconds since a process.hrtime.bigint() reading. */
export function secondsSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}
