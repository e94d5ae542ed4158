import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { operatorScope } from 'src/common/db/tenant-scope';
import { AdvisoryLock, tryWithLock } from 'src/common/db/advisory-locks';
import { PollingLoop } from 'src/common/jobs/polling-loop';
import { SingleFlight } from 'src/common/jobs/single-flight';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { WebhooksRepository } from './webhooks.repository';

/** Rows per DELETE: a few milliseconds of work, so the embedded engine's one connection is never held long. */
export const WEBHOOK_PRUNE_BATCH = 1000;
/**
 * Batches per run and status: 100,000 rows every 10 minutes is ~170 events/s sustained, above
 * what one service ingests; a larger backlog (retention just shortened) shrinks over a few runs.
 */
export const WEBHOOK_PRUNE_MAX_BATCHES = 100;
const EVERY_MS = 10 * 60_000;

export interface PruneResult {
  delivered: number;
  dead_letter: number;
}

/**
 * Retention of the webhook outbox (WEBHOOK_RETENTION_DAYS for delivered events,
 * WEBHOOK_DEAD_LETTER_RETENTION_DAYS for dead letters; 0 keeps them). Pending events are never
 * pruned: they are work not yet done. Every 10 minutes, in batches of one short transaction each
 * under a try-lock, so one replica prunes at a time and nothing waits on it.
 */
@Injectable()
export class WebhookRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('webhooks');
  private readonly flight = new SingleFlight<PruneResult | null>();
  private readonly loop = PollingLoop.every('webhook retention prune', this.logger, EVERY_MS, () => this.runOnce());
  private stopping = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    private readonly repo: WebhooksRepository,
    /** The app's timer registry (@nestjs/schedule): the loops' sleeping timers are held there. */
    @Optional() private readonly schedules?: SchedulerRegistry,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.workersEnabled) this.loop.start(this.schedules);
  }

  /** Lets a batch in progress finish before the database closes; no new batch starts. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
    await this.flight.settled();
  }

  /**
   * One run: what it deleted per status, or null when another process holds the prune lock.
   * Tests call it directly (with smaller batches) since crons do not run there.
   */
  runOnce(batchSize = WEBHOOK_PRUNE_BATCH, maxBatches = WEBHOOK_PRUNE_MAX_BATCHES): Promise<PruneResult | null> {
    return this.flight.run(() => this.prune(batchSize, maxBatches));
  }

  private async prune(batchSize: number, maxBatches: number): Promise<PruneResult | null> {
    const result: PruneResult = { delivered: 0, dead_letter: 0 };
    const plan = [
      ['delivered', this.config.webhookRetentionDays],
      ['dead_letter', this.config.webhookDeadLetterRetentionDays],
    ] as const;
    for (const [status, days] of plan) {
      if (days <= 0) continue;
      for (let batch = 0; batch < maxBatches && !this.stopping; batch++) {
        const n = await tryWithLock(this.ds, AdvisoryLock.WebhookRetention, (em) => this.repo.pruneBatch(em, operatorScope(), status, days, batchSize));
        // Another replica is pruning: it carries on from here.
        if (n === null) return result.delivered + result.dead_letter > 0 ? result : null;
        result[status] += n;
        if (n < batchSize) break;
      }
    }
    if (result.delivered + result.dead_letter > 0) this.logger.log(result, 'pruned webhook events past their retention');
    return result;
  }
}
