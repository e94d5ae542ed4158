import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { DataSource } from 'typeorm';
import { initializeWithRetry } from 'src/db/data-source';
import { createThrowawayDb, DEFAULT_PG_ADMIN_URL } from './support/throwaway-db';

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
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  const url = `postgresql://postgres@127.0.0.1:${(server as unknown as { port: number }).port}/postgres`;
  return {
    url,
    poolSize: 1,
    open: () => open(url),
    drop: async () => {
      await server.stop();
      await db.close();
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
