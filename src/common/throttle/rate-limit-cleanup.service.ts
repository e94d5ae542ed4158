import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { AdvisoryLock, tryWithLock } from 'src/common/db/advisory-locks';
import { PollingLoop } from 'src/common/jobs/polling-loop';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { RATE_LIMIT_WINDOW_MS } from './throttle.constants';

const HOUR_MS = 3_600_000;

/**
 * Hourly removal of expired rate-limit windows (contract: "expired windows are removed by an
 * hourly background task"). One bounded statement under a transaction-level advisory lock, so
 * of several processes only one does it and the lock cannot outlive the transaction.
 */
@Injectable()
export class RateLimitCleanup implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('rate-limit');
  private readonly loop = PollingLoop.every('rate-limit cleanup', this.logger, HOUR_MS, () => this.runOnce());

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    /** The app's timer registry (@nestjs/schedule): the loops' sleeping timers are held there. */
    @Optional() private readonly schedules?: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.workersEnabled) this.loop.start(this.schedules);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** Deletes windows that ended; returns how many, or null when another process holds the lock. */
  runOnce(): Promise<number | null> {
    return tryWithLock(this.ds, AdvisoryLock.RateLimitCleanup, async (em) => {
      const [{ n }] = await em.query(
        `WITH gone AS (DELETE FROM rate_limits WHERE window_start <= now() - make_interval(secs => $1) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
        [RATE_LIMIT_WINDOW_MS / 1000],
      );
      if (n > 0) this.logger.log(`removed ${n} expired rate-limit window(s)`);
      return n;
    });
  }
}
