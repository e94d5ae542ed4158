import { loadConfig } from 'src/config/app-config';
import type { Database } from 'src/db/data-source';
import { EmbeddedAutovacuum } from 'src/db/embedded-autovacuum';
import { testEnv } from '../app-factory';
import { useScratchDb } from '../support/scratch-db';

describe('embedded autovacuum', () => {
  const scratch = useScratchDb(async (db) => {
    const ds = await db.open();
    // The server's own autovacuum (PostgreSQL) must not get there first and reset the counters.
    await ds.query(`CREATE TABLE probe (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = false)`);
    return ds;
  });

  const vacuum = (engine: 'pglite' | 'postgres', workers = 'true') =>
    new EmbeddedAutovacuum(loadConfig(testEnv({ SERVICE_WORKERS_ENABLED: workers })), { engine } as Database, scratch.ds);

  /** Activity counters reach pg_stat_user_tables when the writing session flushes them. */
  async function flushStats(): Promise<void> {
    await scratch.ds.query(`SELECT pg_stat_force_next_flush()`);
    await scratch.ds.query(`SELECT 1`);
  }

  const analyzedAt = async () => (await scratch.ds.query(`SELECT coalesce(last_analyze, last_autoanalyze) AS at FROM pg_stat_user_tables WHERE relname = 'probe'`))[0].at;

  it('analyzes a table once enough rows changed, and leaves it alone below the threshold', async () => {
    await scratch.ds.query(`INSERT INTO probe SELECT g, 'x' FROM generate_series(1, 40) g`);
    await flushStats();
    expect(await vacuum('pglite').runOnce()).not.toContain('ANALYZE "probe"');
    await scratch.ds.query(`INSERT INTO probe SELECT g, 'x' FROM generate_series(41, 500) g`);
    await flushStats();
    expect(await vacuum('pglite').runOnce()).toContain('ANALYZE "probe"');
    expect(await analyzedAt()).not.toBeNull();
    await flushStats();
    expect(await vacuum('pglite').runOnce()).not.toContain('ANALYZE "probe"');
  });

  it('vacuums a table whose dead rows pass the threshold', async () => {
    await scratch.ds.query(`UPDATE probe SET v = 'y' WHERE id <= 400`);
    await flushStats();
    expect(await vacuum('pglite').runOnce()).toContain('VACUUM (ANALYZE) "probe"');
    await flushStats();
    const [row] = await scratch.ds.query(`SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'probe'`);
    expect(Number(row.n_dead_tup)).toBe(0);
  });

  it('runs its loop only on the embedded engine with workers on', async () => {
    for (const v of [vacuum('postgres'), vacuum('pglite', 'false')]) {
      v.onApplicationBootstrap();
      expect(v.isRunning).toBe(false);
    }
    const on = vacuum('pglite');
    on.onApplicationBootstrap();
    expect(on.isRunning).toBe(true);
    await on.beforeApplicationShutdown();
    expect(on.isRunning).toBe(false);
  });
});
