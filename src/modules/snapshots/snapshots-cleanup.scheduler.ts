import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { SnapshotsService } from './snapshots.service';

const INTERVAL_NAME = 'snapshots.cleanup';
const HOUR_MS = 3_600_000;

/**
 * Contract: while snapshots are enabled an hourly loop runs the cleanup with its defaults. It is
 * registered only when ENABLE_SNAPSHOTS and WORKERS_ENABLED are on; the advisory lock in
 * SnapshotsService.scheduledCleanup lets one replica do each run.
 */
@Injectable()
export class SnapshotsCleanupScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('snapshots');
  private running: Promise<void> | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registry: SchedulerRegistry,
    private readonly snapshots: SnapshotsService,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.enableSnapshots || !this.config.workersEnabled) return;
    this.registry.addInterval(INTERVAL_NAME, setInterval(() => void this.runOnce(), HOUR_MS));
  }

  /** One cleanup pass; a run still in progress is not started twice. */
  runOnce(): Promise<void> {
    this.running ??= this.snapshots
      .scheduledCleanup()
      .then((cleaned) => {
        if (cleaned) this.logger.log(`hourly cleanup removed ${cleaned} subject(s)`);
      })
      .catch((err: unknown) => this.logger.warn(`hourly cleanup failed: ${(err as Error).message}`))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** The database closes at shutdown: stop the timer and let a running pass finish first. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.registry.doesExist('interval', INTERVAL_NAME)) this.registry.deleteInterval(INTERVAL_NAME);
    await this.running;
  }
}
