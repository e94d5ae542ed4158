import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import { lockDataDir } from './data-dir-lock';
import { type EmbeddedServer, startEmbeddedServer } from './embedded-server';
import { ENTITIES } from './entities';
import { PG_TYPES } from './pg-types';
import { redactDatabaseUrl } from './redact-url';

export type Engine = 'postgres' | 'pglite';

export interface Database {
  dataSource: DataSource;
  engine: Engine;
  /** Where the data lives, without credentials (for logs and /readyz). */
  location: string;
  close(): Promise<void>;
}

export interface DatabaseSettings {
  databaseUrl: string | null;
  dataDir: string;
  databasePoolSize: number;
  /** Time limits of PostgreSQL connections (see config.schema.ts); absent or 0: none. */
  databaseStatementTimeoutMs?: number;
  databaseIdleInTransactionTimeoutMs?: number;
  databaseQueryTimeoutMs?: number;
  databaseKeepaliveIdleMs?: number;
}

type TimeLimits = Pick<DatabaseSettings, 'databaseStatementTimeoutMs' | 'databaseIdleInTransactionTimeoutMs' | 'databaseQueryTimeoutMs' | 'databaseKeepaliveIdleMs'>;

/** pg's message when `query_timeout` elapses without an answer. */
export const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/**
 * A pg client that closes its connection when a query times out on the client side. pg only
 * answers the caller then: the query stays in flight on the socket, so the pool would hand the
 * same connection to the next request, which would queue behind an answer that never comes (a
 * database that stopped answering without closing: a partition, a frozen server). Closing it
 * makes the pool drop it; the next request opens a fresh one or fails its connect timeout.
 */
export class TimeLimitedClient extends Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const result = (super.query as (...a: any[]) => any)(...args);
    if (result && typeof result.then === 'function') {
      return (result as Promise<unknown>).catch((err: unknown) => {
        if (err instanceof Error && err.message === QUERY_TIMEOUT_MESSAGE) this.abandon();
        throw err;
      });
    }
    return result;
  }

  private abandon(): void {
    (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}

/**
 * Per-connection time limits for PostgreSQL (startup parameters and socket options, so they
 * hold from the first statement of every pooled connection). The embedded engine gets none:
 * PGlite runs on a thread of this process (embedded-server.ts), so it cannot become unreachable
 * the way a remote server can, and its single session must never be cut mid-transaction.
 */
export function timeLimitOptions(t: TimeLimits): Record<string, unknown> {
  const keepalive = t.databaseKeepaliveIdleMs ?? 0;
  return {
    Client: TimeLimitedClient,
    ...(t.databaseStatementTimeoutMs ? { statement_timeout: t.databaseStatementTimeoutMs } : {}),
    ...(t.databaseIdleInTransactionTimeoutMs ? { idle_in_transaction_session_timeout: t.databaseIdleInTransactionTimeoutMs } : {}),
    ...(t.databaseQueryTimeoutMs ? { query_timeout: t.databaseQueryTimeoutMs } : {}),
    ...(keepalive > 0 ? { keepAlive: true, keepAliveInitialDelayMillis: keepalive } : {}),
  };
}

/** A URL, or (the embedded engine) a Unix socket directory with the server's fixed names. */
type Connection = string | { socketDir: string };

export function baseOptions(connection: Connection, poolSize: number, keepIdle = false, limits: Record<string, unknown> = {}): PostgresDataSourceOptions {
  return {
    type: 'postgres',
    ...(typeof connection === 'string'
      ? { url: connection }
      : { host: connection.socketDir, port: EMBEDDED_SOCKET_PORT, username: 'postgres', database: 'postgres' }),
    entities: ENTITIES,
    synchronize: false,
    migrationsRun: false,
    // The migrations own the schema, extensions included: connecting never runs CREATE EXTENSION
    // (the entities' uuid keys and vector column would otherwise make TypeORM try on every connect).
    installExtensions: false,
    uuidExtension: 'pgcrypto',
    poolSize,
    // pg keeps idle connections for reuse; a bounded connect timeout makes a down database
    // fail requests fast instead of hanging them.
    // keepIdle: the embedded server's only connection is never closed for idleness, because
    // pglite-socket counts a closing connection for a few ms and would refuse the reconnect.
    extra: { max: poolSize, connectionTimeoutMillis: 5000, idleTimeoutMillis: keepIdle ? 0 : 30000, types: PG_TYPES, ...limits },
    logging: false,
  };
}

/**
 * Connects, retrying refused or dropped first connections for a few seconds: PostgreSQL may
 * still be starting (compose, Kubernetes), and a single-connection server (PGlite, tests)
 * may still be closing the previous client's socket.
 */
export async function initializeWithRetry(ds: DataSource, attempts = 40, delayMs = 100): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      await ds.initialize();
      return;
    } catch (err) {
      const msg = (err as Error).message;
      const transient = /terminated unexpectedly|ECONNREFUSED|ECONNRESET|the database system is starting up|timeout/i.test(msg);
      if (!transient || i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
}

interface PoolCounts {
  totalCount: number;
  idleCount: number;
}

/**
 * Waits (bounded) until no connection is checked out: work that outlives its response (an
 * export's COMMIT after the last byte, a worker's current item) finishes before the pool ends.
 * Closing the embedded engine's only connection mid-transaction would leave PGlite's single
 * session inside that transaction.
 */
export async function drainPool(ds: DataSource, timeoutMs = 10_000): Promise<void> {
  const pool = (ds.driver as unknown as { master?: PoolCounts }).master;
  if (!pool) return;
  const deadline = Date.now() + timeoutMs;
  while (pool.totalCount > pool.idleCount && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function closeDataSource(ds: DataSource): Promise<void> {
  if (!ds.isInitialized) return;
  await drainPool(ds);
  await ds.destroy();
}

/**
 * PostgreSQL when a URL is configured; otherwise PGlite (Postgres in WASM) persisted under
 * dataDir, run on its own thread and served on a private Unix socket so the ordinary pg driver
 * talks to it. PGlite is a single session, so the pool is exactly one connection: a second one
 * would be refused, not queued (which is why services always pass the transaction's
 * EntityManager down).
 */
export async function openDatabase(settings: DatabaseSettings): Promise<Database> {
  if (settings.databaseUrl) {
    const ds = new DataSource(baseOptions(settings.databaseUrl, settings.databasePoolSize, settings.databasePoolSize === 1, timeLimitOptions(settings)));
    await initializeWithRetry(ds);
    return { dataSource: ds, engine: 'postgres', location: redactDatabaseUrl(settings.databaseUrl), close: () => closeDataSource(ds) };
  }
  const dir = resolve(settings.dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  // A second process on the same files would corrupt them: refuse to start instead.
  const unlock = lockDataDir(resolve(settings.dataDir));
  let server: EmbeddedServer;
  let ds: DataSource;
  const socketDir = privateSocketDir();
  const cleanUp = () => {
    rmSync(socketDir, { recursive: true, force: true });
    unlock();
  };
  try {
    server = await startEmbeddedServer({
      dataDir: dir,
      socketPath: join(socketDir, `.s.PGSQL.${EMBEDDED_SOCKET_PORT}`),
      // As when PGlite ran on this thread and failed: the process ends, and its supervisor
      // restarts it on the data directory (which PGlite recovers like PostgreSQL would).
      onUnexpectedExit: (error) => {
        process.nextTick(() => {
          throw error;
        });
      },
    });
  } catch (err) {
    cleanUp();
    throw err;
  }
  try {
    ds = new DataSource(baseOptions({ socketDir }, 1, true));
    await initializeWithRetry(ds);
  } catch (err) {
    await server.stop();
    cleanUp();
    throw err;
  }
  return {
    dataSource: ds,
    engine: 'pglite',
    location: dir,
    close: async () => {
      await closeDataSource(ds);
      await server.stop();
      cleanUp();
    },
  };
}

/**
 * The embedded server speaks the PostgreSQL protocol with no authentication (PGlite has no
 * users), so it must not listen where others can reach it: a TCP port on 127.0.0.1 is open to
 * every local user and to any process in the container. It listens on a Unix socket in a
 * directory only this user can enter (mkdtemp creates it 0700), under the system temp dir to
 * stay within the ~100-byte limit of socket paths. The port is only part of the socket's name.
 */
const EMBEDDED_SOCKET_PORT = 5432;

function privateSocketDir(): string {
  const socketDir = mkdtempSync(join(tmpdir(), 'memsvc-pglite-'));
  chmodSync(socketDir, 0o700);
  return socketDir;
}
