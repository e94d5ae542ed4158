import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
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

/**
 * Autovacuum for the embedded engine. PGlite runs PostgreSQL in single-user mode, where the
 * autovacuum launcher never starts: without this, its tables would never get planner statistics
 * (every plan chosen on guesses; a context query's neighbour lookup ran 6× slower) and dead rows
 * from updates (compiled flags, webhook and job states, rate-limit windows) would never be
 * reclaimed. Every 10 s it applies PostgreSQL's default autovacuum thresholds to the activity
 * counters PGlite does keep. A real PostgreSQL server has its own autovacuum: this does nothing.
 */
@Injectable()
export class EmbeddedAutovacuum implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('autovacuum');
  private readonly loop = PollingLoop.every('embedded autovacuum', this.logger, EVERY_MS, () => this.runOnce());

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(DATABASE) private readonly db: Database,
    private readonly ds: DataSource,
    /** The app's timer registry (@nestjs/schedule): the loops' sleeping timers are held there. */
    @Optional() private readonly schedules?: SchedulerRegistry,
  ) {}

  /** Only on the embedded engine with workers on. */
  get enabled(): boolean {
    return this.config.workersEnabled && this.db.engine === 'pglite';
  }

  get isRunning(): boolean {
    return this.loop.isRunning;
  }

  onApplicationBootstrap(): void {
    if (this.enabled) this.loop.start(this.schedules);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** One round: VACUUM ANALYZE or ANALYZE each table past its threshold; returns what ran. */
  async runOnce(): Promise<string[]> {
    const tables: TableStats[] = await this.ds.query(
      `SELECT relname, n_live_tup, n_dead_tup, n_mod_since_analyze FROM pg_stat_user_tables WHERE schemaname = current_schema()`,
    );
    const done: string[] = [];
    for (const t of tables) {
      const live = Number(t.n_live_tup);
      const vacuum = Number(t.n_dead_tup) > THRESHOLD_ROWS + VACUUM_SCALE * live;
      const analyze = Number(t.n_mod_since_analyze) > THRESHOLD_ROWS + ANALYZE_SCALE * live;
      if (!vacuum && !analyze) continue;
      // relname comes from the catalogue; quote it as an identifier all the same.
      const table = `"${t.relname.replace(/"/g, '""')}"`;
      const statement = vacuum ? `VACUUM (ANALYZE) ${table}` : `ANALYZE ${table}`;
      const started = Date.now();
      await this.ds.query(statement);
      this.logger.debug({ table: t.relname, ms: Date.now() - started }, statement.split(' ')[0].toLowerCase());
      done.push(statement);
    }
    return done;
  }
}
