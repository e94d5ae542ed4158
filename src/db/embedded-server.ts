import { Worker } from 'node:worker_threads';
import { BATCHED_READS_SOURCE } from './pglite-batched-reads';

/**
 * The embedded engine (PGlite: PostgreSQL compiled to WASM) and the socket server the pg driver
 * talks to, run on a worker thread of this process.
 *
 * Why a thread: PGlite executes every statement synchronously on the thread that owns it. On the
 * service's own thread a statement stopped the event loop for its whole run (a large export's
 * query, a receipt's INSERT and its WAL writes), so nothing else (probes, other requests, the
 * bundle being built while a receipt is written) could proceed meanwhile, and the protocol
 * buffers it copied were the service's garbage. On its own thread the database works while the
 * service's JavaScript runs on the other core, which is what PostgreSQL gives for free.
 *
 * The data directory stays owned by one process (the caller holds its lock) and one thread.
 */
export interface EmbeddedServer {
  /** Stops the socket server and closes the database (flushing it), then ends the thread. */
  stop(): Promise<void>;
}

export interface EmbeddedServerOptions {
  dataDir: string;
  /** The Unix socket the server listens on. */
  socketPath: string;
  /** Called once if the thread ends while the service still needs it. */
  onUnexpectedExit(error: Error): void;
  /** Bound on opening the database (recovery of a large directory can take a while). */
  startTimeoutMs?: number;
  stopTimeoutMs?: number;
}

/**
 * The thread's program. It is plain JavaScript in a string, run with `eval`, so the same code
 * runs from the compiled service and from the TypeScript sources under jest (a worker cannot load
 * a .ts file); the modules are resolved by the caller and passed in as absolute paths.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.modules.pglite);
const { vector } = require(workerData.modules.vector);
const { PGLiteSocketServer, PGLiteSocketHandler } = require(workerData.modules.socket);
const { inspect } = require('node:util');
${BATCHED_READS_SOURCE}
// PGlite's file-system errors are Emscripten ErrnoErrors: plain objects without a message.
const describe = (err) => (err && typeof err.message === 'string' && err.message ? err.message : inspect(err, { breakLength: Infinity }));
(async () => {
  let db;
  let server;
  try {
    db = await PGlite.create({ dataDir: workerData.dataDir, extensions: { vector } });
    server = new PGLiteSocketServer({ db, path: workerData.socketPath, maxConnections: 1 });
    await server.start();
  } catch (err) {
    if (db) await db.close().catch(() => undefined);
    parentPort.postMessage({ type: 'failed', message: describe(err) });
    return;
  }
  parentPort.postMessage({ type: 'ready' });
  parentPort.on('message', async (msg) => {
    if (msg.type !== 'stop') return;
    let message = null;
    try {
      await server.stop();
      await db.close();
    } catch (err) {
      message = describe(err);
    }
    parentPort.postMessage({ type: 'stopped', message });
    parentPort.close();
  });
})();
`;

type WorkerMessage = { type: 'ready' } | { type: 'failed'; message: string } | { type: 'stopped'; message: string | null };

export function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      dataDir: options.dataDir,
      socketPath: options.socketPath,
      modules: {
        pglite: require.resolve('@electric-sql/pglite'),
        vector: require.resolve('@electric-sql/pglite-pgvector'),
        socket: require.resolve('@electric-sql/pglite-socket'),
      },
    },
  });
  let stopping = false;
  let started = false;
  let exited = false;

  const startTimeoutMs = options.startTimeoutMs ?? 120_000;

  return new Promise<EmbeddedServer>((resolveStart, rejectStart) => {
    const startTimer = setTimeout(() => {
      stopping = true;
      void worker.terminate();
      rejectStart(new Error(`The embedded database did not open within ${Math.round(startTimeoutMs / 1000)} s (${options.dataDir}).`));
    }, startTimeoutMs);
    startTimer.unref();

    let stopped: ((message: string | null) => void) | null = null;
    worker.on('message', (msg: WorkerMessage) => {
      if (msg.type === 'ready') {
        clearTimeout(startTimer);
        started = true;
        resolveStart({ stop });
      } else if (msg.type === 'failed') {
        clearTimeout(startTimer);
        stopping = true;
        void worker.terminate();
        rejectStart(new Error(`The embedded database in ${options.dataDir} could not open: ${msg.message}`));
      } else if (msg.type === 'stopped') {
        stopped?.(msg.message);
      }
    });
    let lastError: Error | null = null;
    worker.on('error', (err) => {
      lastError = err;
    });
    worker.on('exit', (code) => {
      exited = true;
      clearTimeout(startTimer);
      stopped?.(lastError ? lastError.message : null);
      if (stopping) return;
      const error = new Error(
        `The embedded database's thread ended unexpectedly (exit code ${code}${lastError ? `: ${lastError.message}` : ''}); the service cannot continue without it.`,
      );
      if (!started) rejectStart(error);
      else options.onUnexpectedExit(error);
    });

    async function stop(): Promise<void> {
      // A thread that already ended (reported through onUnexpectedExit) has nothing to close.
      if (stopping || exited) return;
      stopping = true;
      const done = new Promise<string | null>((r) => {
        stopped = r;
      });
      const timeoutMs = options.stopTimeoutMs ?? 30_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), timeoutMs);
      });
      worker.postMessage({ type: 'stop' });
      const outcome = await Promise.race([done, timedOut]);
      clearTimeout(timer);
      await worker.terminate();
      if (outcome === 'timeout') throw new Error(`The embedded database did not close within ${Math.round(timeoutMs / 1000)} s.`);
      if (outcome) throw new Error(`Closing the embedded database failed: ${outcome}`);
    }
  });
}
