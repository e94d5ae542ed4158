import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketHandler, PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { DataSource } from 'typeorm';
import { upgrade } from '../../src/db/migration-runner';
import { useBatchedReads } from '../../src/db/pglite-batched-reads';
import { createThrowawayDb, DEFAULT_PG_ADMIN_URL } from '../support/throwaway-db';

/**
 * One migrated database per jest run, shared by the test files (run in band); each file
 * truncates it on start (see test/app-factory.ts). TEST_ENGINE picks the engine:
 * - pglite: an in-memory PGlite served on a loopback socket from this process;
 * - postgres: a fresh database `memsvc_test_<pid>_<time>` on TEST_PG_ADMIN_URL, dropped afterwards,
 *   so parallel runs on one server never see each other.
 */

export default async function globalSetup(): Promise<void> {
  const engine = process.env.TEST_ENGINE ?? 'pglite';
  let url: string;
  const g = globalThis as unknown as { __memsvcTeardown?: () => Promise<void> };
  if (engine === 'postgres') {
    const adminUrl = process.env.TEST_PG_ADMIN_URL ?? DEFAULT_PG_ADMIN_URL;
    let db;
    try {
      db = await createThrowawayDb(adminUrl, 'memsvc_test');
    } catch (err) {
      throw new Error(`TEST_ENGINE=postgres needs a PostgreSQL server at ${adminUrl} (set TEST_PG_ADMIN_URL): ${(err as Error).message}`);
    }
    url = db.url;
    g.__memsvcTeardown = db.drop;
    process.env.TEST_DB_POOL = '5';
  } else {
    const db = await PGlite.create({ extensions: { vector } });
    // Read as the service's embedded engine reads (src/db/pglite-batched-reads.ts).
    useBatchedReads(PGLiteSocketHandler);
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
    await server.start();
    url = `postgresql://postgres@127.0.0.1:${(server as unknown as { port: number }).port}/postgres`;
    g.__memsvcTeardown = async () => {
      await server.stop();
      await db.close();
    };
    process.env.TEST_DB_POOL = '1';
  }
  const ds = new DataSource({ type: 'postgres', url, extra: { max: 1 } });
  await ds.initialize();
  await upgrade(ds, 'head');
  await ds.destroy();
  process.env.TEST_ENGINE = engine;
  process.env.TEST_DB_URL = url;
}
