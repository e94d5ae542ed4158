import { DataSource } from 'typeorm';
import { upgrade } from '../../src/db/migration-runner';
import { servePGlite } from './pglite-server';
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
    const served = await servePGlite();
    url = served.url;
    g.__memsvcTeardown = served.stop;
    process.env.TEST_DB_POOL = '1';
  }
  const ds = new DataSource({ type: 'postgres', url, extra: { max: 1 } });
  await ds.initialize();
  await upgrade(ds, 'head');
  await ds.destroy();
  process.env.TEST_ENGINE = engine;
  process.env.TEST_DB_URL = url;
}
