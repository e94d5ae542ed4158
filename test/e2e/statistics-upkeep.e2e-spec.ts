import { loadConfig } from 'src/config/app-config';
import type { Database } from 'src/db/data-source';
import { StatisticsUpkeep, upkeepMode } from 'src/db/statistics-upkeep';
import { testEnv } from '../app-factory';
import { useScratchDb } from '../support/scratch-db';

describe('table statistics upkeep', () => {
  const scratch = useScratchDb(async (db) => {
    const ds = await db.open();
    // The server's own autovacuum (PostgreSQL) must not get there first and reset the counters.
    await ds.query(`CREATE TABLE probe (id int PRIMARY KEY, v text) WITH (autovacuum_enabled = false)`);
    return ds;
  });

  const upkeep = (engine: 'pglite' | 'postgres', workers = 'true') =>
    new StatisticsUpkeep(loadConfig(testEnv({ SERVICE_WORKERS_ENABLED: workers })), { engine } as Database, scratch.ds);
  /** Started as the app starts it: the mode is decided from the engine and the server's setting. */
  const vacuum = async (engine: 'pglite' | 'postgres', workers = 'true') => {
    const v = upkeep(engine, workers);
    await v.onApplicationBootstrap();
    await v.beforeApplicationShutdown();
    return v;
  };

  /** Activity counters reach pg_stat_user_tables when the writing session flushes them. */
  async function flushStats(): Promise<void> {
    await scratch.ds.query(`SELECT pg_stat_force_next_flush()`);
    await scratch.ds.query(`SELECT 1`);
  }

  const analyzedAt = async () => (await scratch.ds.query(`SELECT coalesce(last_analyze, last_autoanalyze) AS at FROM pg_stat_user_tables WHERE relname = 'probe'`))[0].at;

  it('analyzes a table once enough rows changed, and leaves it alone below the threshold', async () => {
    await scratch.ds.query(`INSERT INTO probe SELECT g, 'x' FROM generate_series(1, 40) g`);
    await flushStats();
    expect(await (await vacuum('pglite')).runOnce()).not.toContain('ANALYZE "probe"');
    await scratch.ds.query(`INSERT INTO probe SELECT g, 'x' FROM generate_series(41, 500) g`);
    await flushStats();
    expect(await (await vacuum('pglite')).runOnce()).toContain('ANALYZE "probe"');
    expect(await analyzedAt()).not.toBeNull();
    await flushStats();
    expect(await (await vacuum('pglite')).runOnce()).not.toContain('ANALYZE "probe"');
  });

  it('vacuums a table whose dead rows pass the threshold', async () => {
    await scratch.ds.query(`UPDATE probe SET v = 'y' WHERE id <= 400`);
    await flushStats();
    expect(await (await vacuum('pglite')).runOnce()).toContain('VACUUM (ANALYZE) "probe"');
    await flushStats();
    const [row] = await scratch.ds.query(`SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'probe'`);
    expect(Number(row.n_dead_tup)).toBe(0);
  });

  it('analyzes, and never vacuums, on a server whose autovacuum is off', async () => {
    const server = (await scratch.ds.query(`SELECT current_setting('autovacuum') AS s`))[0].s;
    const v = await vacuum('postgres');
    // This machine's cluster runs with autovacuum off (its CI configuration); elsewhere the server keeps its own statistics.
    expect(v.currentMode).toBe(server === 'off' ? 'analyze' : 'off');
    if (v.currentMode !== 'analyze') return;
    await scratch.ds.query(`UPDATE probe SET v = 'z' WHERE id <= 400`);
    await flushStats();
    expect(await v.runOnce()).toEqual(expect.arrayContaining(['ANALYZE "probe"']));
    expect((await v.runOnce()).some((s) => s.startsWith('VACUUM'))).toBe(false);
    const [row] = await scratch.ds.query(`SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'probe'`);
    expect(Number(row.n_dead_tup)).toBeGreaterThan(0);
  });

  it('merges the GIN pending list of a table it analyzes, which a manual ANALYZE leaves in place', async () => {
    await scratch.ds.query(`CREATE TABLE probe_text (id int PRIMARY KEY, tsv tsvector) WITH (autovacuum_enabled = false)`);
    await scratch.ds.query(`CREATE INDEX ix_probe_text ON probe_text USING gin (tsv) WITH (fastupdate = on)`);
    const insert = (from: number, to: number) =>
      scratch.ds.query(`INSERT INTO probe_text SELECT g, to_tsvector('english', 'harbour log line ' || g) FROM generate_series(${from}, ${to}) g`);
    // Merging reports the pending pages it merged: a plain ANALYZE leaves them pending.
    await insert(1, 300);
    await scratch.ds.query(`ANALYZE probe_text`);
    expect(Number((await scratch.ds.query(`SELECT gin_clean_pending_list('ix_probe_text') AS pages`))[0].pages)).toBeGreaterThan(0);

    await insert(301, 900);
    await flushStats();
    const ran = await (await vacuum('pglite')).runOnce();
    expect(ran).toEqual(expect.arrayContaining(['ANALYZE "probe_text"', 'gin_clean_pending_list("ix_probe_text")']));
    expect(Number((await scratch.ds.query(`SELECT gin_clean_pending_list('ix_probe_text') AS pages`))[0].pages)).toBe(0);
    const [hit] = await scratch.ds.query(`SELECT count(*)::int AS n FROM probe_text WHERE tsv @@ to_tsquery('english', '450')`);
    expect(hit.n).toBe(1);

    // On a server whose autovacuum is off the round runs in a transaction (under its advisory lock).
    const server = await vacuum('postgres');
    if (server.currentMode !== 'analyze') return;
    await insert(901, 1800);
    await flushStats();
    expect(await server.runOnce()).toEqual(expect.arrayContaining(['ANALYZE "probe_text"', 'gin_clean_pending_list("ix_probe_text")']));
    expect(Number((await scratch.ds.query(`SELECT gin_clean_pending_list('ix_probe_text') AS pages`))[0].pages)).toBe(0);
  });

  it('chooses its mode from the engine, the workers setting and the server autovacuum', () => {
    expect(upkeepMode('pglite', true, null)).toBe('vacuum-and-analyze');
    expect(upkeepMode('pglite', false, null)).toBe('off');
    expect(upkeepMode('postgres', true, 'off')).toBe('analyze');
    expect(upkeepMode('postgres', true, 'on')).toBe('off');
    expect(upkeepMode('postgres', false, 'off')).toBe('off');
    expect(upkeepMode('postgres', true, null)).toBe('off');
  });

  it('runs its loop only where a mode applies, and stops it at shutdown', async () => {
    const off = upkeep('pglite', 'false');
    await off.onApplicationBootstrap();
    expect(off.isRunning).toBe(false);
    const on = upkeep('pglite');
    await on.onApplicationBootstrap();
    expect(on.isRunning).toBe(true);
    await on.beforeApplicationShutdown();
    expect(on.isRunning).toBe(false);
  });
});
