import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { operatorScope } from 'src/common/db/tenant-scope';
import { PollingLoop } from 'src/common/jobs/polling-loop';
import { SingleFlight } from 'src/common/jobs/single-flight';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { SupportService } from './support.service';

/**
 * A mark younger than this is left to the process that ingested it (its in-memory refresh runs
 * within about a second, later only under heavy load); older ones were orphaned by a crash.
 */
const STALE_AFTER_MS = 30_000;
const MINUTE_MS = 60_000;

/**
 * Recovers health recomputations that ingestion marked durably but no live process ran (the
 * process died first): once during start-up, for every mark left from before, then every minute
 * for marks older than 30 s. Runs where WORKERS_ENABLED is on; a subject recomputed by two processes
 * emits its event once.
 */
@Injectable()
export class HealthMarksSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('support');
  private readonly flight = new SingleFlight<number>();
  private readonly loop = PollingLoop.every('health mark sweep', this.logger, MINUTE_MS, () => this.runOnce(STALE_AFTER_MS));
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly support: SupportService,
    /** The app's timer registry (@nestjs/schedule): the loops' sleeping timers are held there. */
    @Optional() private readonly schedules?: SchedulerRegistry,
  ) {}

  /**
   * Awaited before the server listens: what a crash left is recomputed (and its events queued)
   * before the process answers, so "ready and nothing pending" means recovered. Bounded by one
   * sweep (HEALTH_SWEEP_BATCH subjects); the rest follow a minute later.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.workersEnabled) return;
    await this.runOnce(0);
    this.loop.start(this.schedules);
  }

  /** One sweep; never throws (failures are logged and the marks stay for the next one). */
  runOnce(olderThanMs: number): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    return this.flight.run(async () => {
      try {
        const n = await this.support.sweepHealthMarks(operatorScope(), olderThanMs);
        if (n > 0) this.logger.log(`recomputed the health of ${n} subject(s) marked by an ingestion nobody refreshed`);
        return n;
      } catch (err) {
        this.logger.warn({ err: { message: (err as Error).message } }, 'health mark sweep failed; next sweep in a minute');
        return 0;
      }
    });
  }

  /** The database closes at shutdown: no new sweep, and the running one finishes first. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
    await this.flight.settled();
  }
}
