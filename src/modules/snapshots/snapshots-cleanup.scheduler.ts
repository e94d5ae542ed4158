import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { PollingLoop } from 'src/common/jobs/polling-loop';
import { SingleFlight } from 'src/common/jobs/single-flight';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { SnapshotsCleanupService } from './snapshots-cleanup.service';

const HOUR_MS = 3_600_000;

/**
 * Contract: while snapshots are enabled an hourly loop runs the cleanup with its defaults. It is
 * started only when ENABLE_SNAPSHOTS and WORKERS_ENABLED are on; the advisory lock in
 * SnapshotsCleanupService.scheduledCleanup lets one replica do each run.
 */
@Injectable()
export class SnapshotsCleanupScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('snapshots');
  private readonly flight = new SingleFlight<void>();
  private readonly loop = PollingLoop.every('hourly snapshot cleanup', this.logger, HOUR_MS, () => this.runOnce());

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly cleanups: SnapshotsCleanupService,
    /** The app's timer registry (@nestjs/schedule): the loops' sleeping timers are held there. */
    @Optional() private readonly schedules?: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.enableSnapshots && this.config.workersEnabled) this.loop.start(this.schedules);
  }

  /** One cleanup pass; never throws (a failure is logged and the next hour retries). */
  runOnce(): Promise<void> {
    return this.flight.run(async () => {
      try {
        const cleaned = await this.cleanups.scheduledCleanup();
        if (cleaned) this.logger.log(`hourly cleanup removed ${cleaned} subject(s)`);
      } catch (err) {
        this.logger.warn(`hourly cleanup failed: ${(err as Error).message}`);
      }
    });
  }

  /** The database closes at shutdown: no new pass, and a running one finishes first. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await this.flight.settled();
  }
}
