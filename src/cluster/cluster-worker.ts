import cluster from 'node:cluster';
import type { Server } from 'node:http';
import { Logger } from '@nestjs/common';
import { AggregatorRegistry, Counter } from 'prom-client';
import { registry } from 'src/common/metrics/metrics';
import type { ReadRouter } from 'src/db/read-replicas';
import { ClusterMessage, isClusterMessage } from './cluster-messages';

/** How long a worker's /metrics waits for the primary's aggregate (prom-client waits 5 s for each worker). */
const METRICS_TIMEOUT_MS = 7000;

const pending = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();
let nextId = 1;
let joined = false;

/** True in an HTTP worker of a cluster (SERVICE_WORKERS > 1). */
export function inCluster(): boolean {
  return joined;
}

/**
 * The metrics of every worker, aggregated by the primary (sums for counters and histograms, the
 * aggregator each gauge declares). Only in a cluster worker: a single process renders its own
 * registry.
 */
export function clusterMetrics(): Promise<string> {
  const id = nextId++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error('the cluster primary did not answer the metrics request in time'));
    }, METRICS_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    process.send!({ type: 'memsvc:metrics-req', id } satisfies ClusterMessage);
  });
}

/**
 * Makes this process a cluster worker (no-op outside a cluster): its registry answers the
 * primary's metric requests, its read-your-writes fences reach its siblings, each request it
 * serves is counted under its worker id (`memory_cluster_worker_requests_total`, which shows the
 * spread across workers), and it shuts down gracefully when the primary goes away (a primary
 * killed with SIGKILL must not leave workers running background work with no port to serve).
 */
export function joinCluster(server: Server, reads: ReadRouter): void {
  if (!cluster.isWorker || joined) return;
  joined = true;
  const logger = new Logger('cluster');
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's listener for the primary's requests.
  new AggregatorRegistry();
  const served = new Counter({
    name: 'memory_cluster_worker_requests_total',
    help: 'HTTP requests answered, by cluster worker (SERVICE_WORKERS > 1): id and process id; a restarted worker is a new series.',
    labelNames: ['worker', 'pid'] as const,
    registers: [registry],
  });
  const labels = { worker: String(cluster.worker!.id), pid: String(process.pid) };
  served.inc(labels, 0);
  server.on('request', (_req, res) => res.once('finish', () => served.inc(labels)));

  reads.onFence = (key, lsn, expires) => process.send!({ type: 'memsvc:fence', key, lsn, expires } satisfies ClusterMessage);
  process.on('message', (message: unknown) => {
    if (!isClusterMessage(message)) return;
    if (message.type === 'memsvc:fence') reads.applyFence(message.key, message.lsn, message.expires);
    else if (message.type === 'memsvc:metrics-res') {
      const p = pending.get(message.id);
      if (!p) return;
      pending.delete(message.id);
      clearTimeout(p.timer);
      if (message.text !== undefined) p.resolve(message.text);
      else p.reject(new Error(message.error ?? 'no metrics'));
    }
  });
  process.once('disconnect', () => {
    logger.warn('cluster primary gone: shutting down');
    process.kill(process.pid, 'SIGTERM');
  });
}
