import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource, EntityManager } from 'typeorm';
import { AdvisoryLock, tryWithLock } from 'src/common/db/advisory-locks';
import { PollingLoop } from 'src/common/jobs/polling-loop';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import type { Database } from './data-source';
import { DATABASE } from './database.tokens';

/** PostgreSQL's own autovacuum defaults: act after 50 rows plus this share of the table changed. */
const THRESHOLD_ROWS = 50;
const ANALYZE_SCALE = 0.1;
const VACUUM_SCALE = 0.2;
const EVERY_MS = 10_000;

interface TableStats {
  relname: string;
  n_live_tup: string;
  n_dead_tup: string;
  n_mod_since_analyze: string;
}

/** A name from the catalogue, quoted as an identifier all the same. */
function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * What the service does for its tables' upkeep:
 * - `vacuum-and-analyze`: the embedded engine. PGlite runs PostgreSQL in single-user mode, where
 *   the autovacuum launcher never starts: without this its tables would never get planner
 *   statistics (every plan chosen on guesses; a context query's neighbour lookup ran 6× slower)
 *   and dead rows from updates (compiled flags, webhook and job states, rate-limit windows) would
 *   never be reclaimed.
 * - `analyze`: a PostgreSQL server whose autovacuum is off (`autovacuum = off`, as some CI and
 *   bulk-load configurations set it). Its planner then has no statistics for rows written since
 *   the last manual ANALYZE: on a LoCoMo subject just written, the context read's episode query
 *   took 10–14 ms instead of 1.3–1.4 ms, and the memory query 4–5 ms instead of 2–3 ms, until
 *   an ANALYZE. ANALYZE only samples (bounded work whatever the table's size) and takes no lock
 *   that blocks reads or writes; VACUUM stays the operator's, who turned it off. Like
 *   autovacuum's own ANALYZE, it also merges the table's GIN pending lists (see
 *   flushGinPendingLists).
 * - `off`: a server with its own autovacuum, or a process without background workers.
 */
export type UpkeepMode = 'vacuum-and-analyze' | 'analyze' | 'off';

export function upkeepMode(engine: Database['engine'], workersEnabled: boolean, serverAutovacuum: string | null): UpkeepMode {
  if (!workersEnabled) return 'off';
  if (engine === 'pglite') return 'vacuum-and-analyze';
  return serverAutovacuum === 'off' ? 'analyze' : 'off';
}

/**
 * Autovacuum's thresholds, applied by the service where nothing else applies them (see
 * UpkeepMode): every 10 s it reads the activity counters in `pg_stat_user_tables` and runs
 * VACUUM (ANALYZE) or ANALYZE on each table past PostgreSQL's default thresholds. On a server
 * the round holds a cluster-wide advisory lock, so replicas and workers take turns instead of
 * analysing one table at once.
 */
@Injectable()
export class StatisticsUpkeep implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('autovacuum');
  private readonly loop = PollingLoop.every('table statistics upkeep', this.logger, EVERY_MS, () => this.runOnce());
  private mode: UpkeepMode = 'off';

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    private readonly ds: DataSource,
    /** The app's timer registry (@nestjs/schedule): the loops' sleeping timers are held there. */
    @Optional() private readonly schedules?: SchedulerRegistry,
  ) {}

  get isRunning(): boolean {
    return this.loop.isRunning;
  }

  /** The mode this process runs in, decided at start (`off` before). */
  get currentMode(): UpkeepMode {
    return this.mode;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.mode = upkeepMode(this.db.engine, this.config.workersEnabled, await this.serverAutovacuum());
    if (this.mode === 'off') return;
    if (this.mode === 'analyze') {
      this.logger.warn("the database server's autovacuum is off: the service keeps its own tables' planner statistics (ANALYZE past autovacuum's thresholds); vacuuming stays with the operator");
    }
    this.loop.start(this.schedules);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** The server's `autovacuum` setting; null on the embedded engine or when it cannot be read. */
  private async serverAutovacuum(): Promise<string | null> {
    if (this.db.engine !== 'postgres' || !this.config.workersEnabled) return null;
    try {
      const [row] = await this.ds.query(`SELECT current_setting('autovacuum') AS setting`);
      return row.setting;
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'could not read the server autovacuum setting; leaving table upkeep to the server');
      return null;
    }
  }

  /** One round: each table past its threshold is vacuumed and/or analysed; returns what ran. */
  async runOnce(): Promise<string[]> {
    if (this.mode === 'analyze') return (await tryWithLock(this.ds, AdvisoryLock.TableStatistics, (em) => this.round(em, false))) ?? [];
    return this.round(this.ds.manager, true);
  }

  private async round(em: EntityManager, vacuumToo: boolean): Promise<string[]> {
    const tables: TableStats[] = await em.query(
      `SELECT relname, n_live_tup, n_dead_tup, n_mod_since_analyze FROM pg_stat_user_tables WHERE schemaname = current_schema()`,
    );
    const done: string[] = [];
    for (const t of tables) {
      const live = Number(t.n_live_tup);
      const vacuum = vacuumToo && Number(t.n_dead_tup) > THRESHOLD_ROWS + VACUUM_SCALE * live;
      const analyze = Number(t.n_mod_since_analyze) > THRESHOLD_ROWS + ANALYZE_SCALE * live;
      if (!vacuum && !analyze) continue;
      const table = quoted(t.relname);
      const statement = vacuum ? `VACUUM (ANALYZE) ${table}` : `ANALYZE ${table}`;
      const started = Date.now();
      await em.query(statement);
      this.logger.debug({ table: t.relname, ms: Date.now() - started }, statement.split(' ')[0].toLowerCase());
      done.push(statement);
      if (!vacuum) done.push(...(await this.flushGinPendingLists(em, table)));
    }
    return done;
  }

  /**
   * A GIN index (the full-text indexes of episodes and memories) takes new rows into a pending
   * list that every search reads in full, until VACUUM or autovacuum's own ANALYZE merges it into
   * the index; a manual ANALYZE does not (PostgreSQL's ginvacuumcleanup merges it only in an
   * autovacuum worker). Where the service analyses in autovacuum's place, it merges the list too:
   * on a LoCoMo subject just written (every row still pending), the context read's memory query
   * took 7.5 ms, 3.6 of them in the full-text index scan, and 3.5 ms with 0.1–0.2 ms in that
   * scan once merged. After VACUUM there is nothing to merge. Only an index's owner may merge
   * (ANALYZE by another role is skipped, not refused), so indexes of another owner are left as
   * they are rather than failing the round's transaction.
   */
  private async flushGinPendingLists(em: EntityManager, table: string): Promise<string[]> {
    const started = Date.now();
    // One statement: each index is merged by its oid, so no name is quoted back into SQL.
    const merged: { name: string }[] = await em.query(
      `SELECT c.relname AS name, gin_clean_pending_list(c.oid::regclass) AS pages
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
       WHERE i.indrelid = $1::regclass AND a.amname = 'gin' AND pg_has_role(c.relowner, 'USAGE') ORDER BY c.relname`,
      [table],
    );
    if (merged.length > 0) this.logger.debug({ table, indexes: merged.map((m) => m.name), ms: Date.now() - started }, 'gin pending lists merged');
    return merged.map(({ name }) => `gin_clean_pending_list(${quoted(name)})`);
  }
}
