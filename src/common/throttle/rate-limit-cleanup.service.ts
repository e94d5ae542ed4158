import { Inject, Injectable, Logger } from '@nestjs/common';
import { Cron, CronExpression } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { RATE_LIMIT_WINDOW_MS } from './throttle.constants';

/** Advisory lock key of this cron (arbitrary, unique among the service's locks). */
const CLEANUP_LOCK_KEY = 720_009;

/**
 * Hourly removal of expired rate-limit windows (contract: "expired windows are removed by an
 * hourly background task"). One bounded statement under a transaction-level advisory lock, so
 * of several processes only one does it and the lock cannot outlive the transaction.
 */
@Injectable()
export class RateLimitCleanup {
  private readonly logger = new Logger('rate-limit');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
  ) {}

  @Cron(CronExpression.EVERY_HOUR, { name: 'rate-limit-cleanup', waitForCompletion: true })
  async onSchedule(): Promise<void> {
    if (!this.config.workersEnabled) return;
    try {
      await this.runOnce();
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'rate-limit cleanup failed; next run in an hour');
    }
  }

  /** Deletes windows that ended; returns how many, or null when another process holds the lock. */
  async runOnce(): Promise<number | null> {
    return this.ds.transaction(async (em) => {
      const [{ locked }] = await em.query(`SELECT pg_try_advisory_xact_lock($1) AS locked`, [CLEANUP_LOCK_KEY]);
      if (!locked) return null;
      const [{ n }] = await em.query(
        `WITH gone AS (DELETE FROM rate_limits WHERE window_start <= now() - make_interval(secs => $1) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        [RATE_LIMIT_WINDOW_MS / 1000],
      );
      if (n > 0) this.logger.log(`removed ${n} expired rate-limit window(s)`);
      return n;
    });
  }
}
