import cluster, { Worker } from 'node:cluster';
import pino from 'pino';
import { AggregatorRegistry } from 'prom-client';
import { ClusterMessage, isClusterMessage } from './cluster-messages';

/**
 * SIGTERM to exit: a worker drains for up to HttpDrainService.DRAIN_TIMEOUT_MS (25 s), then
 * closes its pools. A number here, not an import: the primary loads no Nest code (a spec checks
 * the margin).
 */
export const CLUSTER_SHUTDOWN_TIMEOUT_MS = 35_000;
/** Restart delay after a crash: doubles per crash within RESTART_WINDOW_MS, up to the cap. */
const RESTART_BASE_MS = 500;
const RESTART_MAX_MS = 30_000;
const RESTART_WINDOW_MS = 60_000;

/**
 * The cluster primary (SERVICE_WORKERS > 1): forks the HTTP workers, which share the listening
 * port (Node's cluster module hands out connections round-robin), and does nothing else — no
 * Nest application, no database connection. It:
 * - restarts a worker that dies, after a backoff that grows with recent crashes; a worker that
 *   fails before any worker ever listened is a start-up failure (bad schema, database down):
 *   the primary stops the others and exits 1, as a single process would;
 * - on SIGTERM/SIGINT forwards the signal to every worker (each drains its in-flight requests:
 *   HttpDrainService) and exits when all have, SIGKILLing what is left after
 *   CLUSTER_SHUTDOWN_TIMEOUT_MS;
 * - answers a worker's /metrics with the aggregate of all workers (prom-client
 *   AggregatorRegistry), so the route keeps the worker's authentication gate;
 * - relays read-your-writes fences from the worker that wrote to its siblings.
 */
export function runClusterPrimary(opts: { workers: number; logLevel: string; workerScript: string }): void {
  // Workers run the application's bootstrap, not main.ts: this process never loads it.
  cluster.setupPrimary({ exec: opts.workerScript });
  const log = pino({ level: opts.logLevel === 'silent' ? 'silent' : opts.logLevel, base: { pid: process.pid, context: 'cluster' } });
  const aggregator = new AggregatorRegistry();
  const crashes: number[] = [];
  let listened = false;
  let stopping: NodeJS.Signals | null = null;
  let failed = false;

  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.once('listening', () => {
      listened = true;
      log.info({ worker: worker.id, worker_pid: worker.process.pid }, 'worker listening');
    });
    return worker;
  };

  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isClusterMessage(message)) return;
    if (message.type === 'memsvc:metrics-req') {
      const reply = (m: ClusterMessage) => worker.isConnected() && worker.send(m);
      aggregator.clusterMetrics().then(
        (text) => reply({ type: 'memsvc:metrics-res', id: message.id, text }),
        (err: Error) => reply({ type: 'memsvc:metrics-res', id: message.id, error: err.message }),
      );
    } else if (message.type === 'memsvc:fence') {
      for (const other of Object.values(cluster.workers ?? {})) if (other && other !== worker && other.isConnected()) other.send(message);
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    const alive = Object.keys(cluster.workers ?? {}).length;
    if (stopping) {
      if (alive === 0) finish();
      return;
    }
    if (!listened) {
      // Nothing ever served: the same failure would repeat in every worker (config, schema).
      log.error({ worker: worker.id, code, signal }, 'worker failed during start-up; stopping');
      failed = true;
      stop('SIGTERM');
      if (alive === 0) finish();
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while (crashes.length > 0 && crashes[0] < now - RESTART_WINDOW_MS) crashes.shift();
    const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** (crashes.length - 1));
    log.error({ worker: worker.id, worker_pid: worker.process.pid, code, signal, restart_in_ms: delay }, 'worker exited; restarting it');
    setTimeout(() => {
      if (!stopping) fork();
    }, delay).unref();
  });

  const finish = () => {
    log.info({ signal: stopping }, 'all workers stopped');
    process.exit(failed ? 1 : 0);
  };

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = signal;
    log.info({ signal }, `${signal}: stopping ${Object.keys(cluster.workers ?? {}).length} workers`);
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
    setTimeout(() => {
      const left = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
      log.error({ workers: left.map((w) => w.process.pid) }, 'workers still running after the shutdown timeout; killing them');
      for (const w of left) w.process.kill('SIGKILL');
      failed = true;
    }, CLUSTER_SHUTDOWN_TIMEOUT_MS).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  log.info({ workers: opts.workers }, 'starting HTTP workers');
  for (let i = 0; i < opts.workers; i++) fork();
}
