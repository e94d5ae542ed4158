import { DataSource } from 'typeorm';
import { initializeWithRetry } from 'src/db/data-source';
import { servePGlite } from '../setup/pglite-server';
import { createThrowawayDb, DEFAULT_PG_ADMIN_URL } from './throwaway-db';

export interface ScratchDb {
  url: string;
  poolSize: number;
  /** A one-connection DataSource on it (no entities), for schema inspection. */
  open(): Promise<DataSource>;
  drop(): Promise<void>;
}

/** An empty database of the run's engine, for tests that migrate from nothing. */
export async function createScratchDb(): Promise<ScratchDb> {
  const open = async (url: string) => {
    const ds = new DataSource({ type: 'postgres', url, extra: { max: 1, idleTimeoutMillis: 0 } });
    await initializeWithRetry(ds);
    return ds;
  };
  if ((process.env.TEST_ENGINE ?? 'pglite') === 'postgres') {
    const db = await createThrowawayDb(process.env.TEST_PG_ADMIN_URL ?? DEFAULT_PG_ADMIN_URL, 'memsvc_scratch');
    return { url: db.url, poolSize: 5, open: () => open(db.url), drop: db.drop };
  }
  const { url, stop } = await servePGlite();
  return { url, poolSize: 1, open: () => open(url), drop: stop };
}

export interface ScratchHandle {
  /** The scratch database (url, pool size). */
  readonly db: ScratchDb;
  /** The DataSource `open` returned; destroyed before the database is dropped. */
  readonly ds: DataSource;
}

/**
 * A scratch database for the enclosing `describe`: created (and opened by `open`, by default
 * `db.open()`) before its tests, closed and dropped after them. `open` may return null when the
 * tests connect their own way (it can still migrate through a connection it closes). The spec's
 * own `beforeAll` hooks declared after this call run once the database is ready.
 */
export function useScratchDb(open: (db: ScratchDb) => Promise<DataSource | null> = (db) => db.open()): ScratchHandle {
  let db: ScratchDb | undefined;
  let ds: DataSource | null = null;
  // A fresh embedded engine starts in seconds, but in minutes on a loaded 2-core runner.
  beforeAll(async () => {
    db = await createScratchDb();
    ds = await open(db);
  }, 180_000);
  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });
  return {
    get db() {
      if (db === undefined) throw new Error('the scratch database is made in beforeAll; read it inside a hook or test');
      return db;
    },
    get ds() {
      if (ds === null) throw new Error('no DataSource: the scratch database was not opened (or not yet)');
      return ds;
    },
  };
}

/** Tables, columns (with types) and indexes of the public schema, as sorted text lines. */
export async function schemaSignature(ds: DataSource): Promise<string[]> {
  const cols = await ds.query(`
    SELECT table_name || '.' || column_name || ' ' || data_type || CASE WHEN is_nullable = 'NO' THEN ' not null' ELSE '' END AS line
    FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'schema_migrations'`);
  const idx = await ds.query(`SELECT 'index ' || indexname || ': ' || indexdef AS line FROM pg_indexes WHERE schemaname = 'public' AND tablename <> 'schema_migrations'`);
  return [...cols, ...idx].map((r: { line: string }) => r.line).sort();
}
