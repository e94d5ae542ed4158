/**
 * Embeds memories stored without an embedding (needs_embedding: the provider was down, slow or
 * misconfigured when they were compiled). Run by a background task every
 * EMBEDDING_BACKFILL_INTERVAL_MINUTES (WORKERS_ENABLED processes, one at a time) and by the
 * `embeddings backfill` command.
 *
 * No transaction is open while the provider is called: each batch is read, embedded, then
 * stored by one UPDATE that only touches rows still flagged.
 */
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { AdvisoryLock, withSessionLock } from 'src/common/db/advisory-locks';
import { operatorScope } from 'src/common/db/tenant-scope';
import { PollingLoop } from 'src/common/jobs/polling-loop';
import { SingleFlight } from 'src/common/jobs/single-flight';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { EmbeddingBackfillRepository } from './embedding-backfill.repository';
import { EMBEDDING_PROVIDER, isUsableVector } from 'src/modules/models/embedding-provider';
import type { EmbeddingProvider } from 'src/modules/models/embedding-provider.types';
import { EmbeddingDimensionError } from 'src/modules/models/openai-embedding-provider';

export interface BackfillResult {
  /** Memories that got a vector. */
  embedded: number;
  /** Memories whose text had nothing to embed (flag cleared, no vector). */
  empty: number;
  /** Still flagged when the run ended (provider failure, or the limit). */
  remaining: number;
  /** Why the run stopped early, if it did (safe to log). */
  error: string | null;
  /** False when another process was already backfilling. */
  ran: boolean;
}

export interface BackfillOptions {
  batchSize: number;
  /** Most memories this run embeds; undefined = all flagged ones. */
  limit?: number;
  progress?: (done: number, total: number) => void;
}

/**
 * At most one backfill across processes. On PostgreSQL with a pool of several connections a
 * session advisory lock is held on a connection of its own while the run calls the provider
 * (an idle connection costs nothing; a transaction would). PGlite is one process with one
 * connection, and within one process the service's SingleFlight is the whole lock; a
 * one-connection pool on PostgreSQL cannot spare a connection either, and at worst two replicas
 * embed the same rows twice (the UPDATE only changes rows still flagged, so the result is the same).
 */
export async function withBackfillLock<T>(ds: DataSource, dedicatedConnection: boolean, fn: () => Promise<T>): Promise<T | null> {
  if (!dedicatedConnection) return fn();
  const runner = ds.createQueryRunner();
  await runner.connect();
  try {
    return await withSessionLock(runner, AdvisoryLock.EmbeddingBackfill, false, fn);
  } finally {
    await runner.release();
  }
}

export async function runBackfill(ds: DataSource, repo: EmbeddingBackfillRepository, provider: EmbeddingProvider, opts: BackfillOptions): Promise<BackfillResult> {
  // The backfill is every tenant's: an embedding is no tenant's business, and a memory keeps its tenant.
  const everyTenant = operatorScope();
  const total = await repo.countPending(ds.manager, everyTenant);
  const goal = Math.min(total, opts.limit ?? total);
  let embedded = 0;
  let empty = 0;
  let error: string | null = null;
  let cursor: { cursor: string; id: string } | null = null;
  while (embedded + empty < goal) {
    const batch = await repo.pending(ds.manager, everyTenant, Math.min(opts.batchSize, goal - embedded - empty), cursor);
    if (batch.length === 0) break;
    cursor = { cursor: batch[batch.length - 1].cursor, id: batch[batch.length - 1].id };
    let vectors: number[][];
    try {
      vectors = await provider.embed(batch.map((m) => m.content));
    } catch (err) {
      error = (err as Error).message;
      if (err instanceof EmbeddingDimensionError) error = `configuration error: ${error}`;
      break;
    }
    const items = batch.map((m, i) => ({ id: m.id, embedding: isUsableVector(vectors[i], provider.dimensions) ? vectors[i] : null }));
    await repo.store(ds.manager, everyTenant, items);
    for (const item of items) {
      if (item.embedding === null) empty++;
      else embedded++;
    }
    opts.progress?.(embedded + empty, goal);
  }
  return { embedded, empty, remaining: total - embedded - empty, error, ran: true };
}

/** Memories embedded per background run: bounded work per tick, the next tick goes on. */
const BACKFILL_PER_RUN = 2000;

@Injectable()
export class EmbeddingBackfillService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('embeddings');
  private readonly flight = new SingleFlight<BackfillResult | null>();
  /** EMBEDDING_BACKFILL_INTERVAL_MINUTES; the first run at start. */
  private readonly loop: PollingLoop;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    private readonly repo: EmbeddingBackfillRepository,
    @Inject(EMBEDDING_PROVIDER) private readonly provider: EmbeddingProvider | null,
    /** The app's timer registry (@nestjs/schedule): the loops' sleeping timers are held there. */
    @Optional() private readonly schedules?: SchedulerRegistry,
  ) {
    this.loop = PollingLoop.every('embedding backfill', this.logger, config.embeddingBackfillIntervalMinutes * 60_000, () => this.tick(), { delayFirstRound: false });
  }

  onApplicationBootstrap(): void {
    const minutes = this.config.embeddingBackfillIntervalMinutes;
    if (!this.config.workersEnabled || minutes <= 0 || this.provider === null || !this.provider.remote) return;
    this.loop.start(this.schedules);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    await this.flight.settled();
  }

  /**
   * One bounded run; null when embeddings are off or another process holds the lock (a call
   * while this process runs one joins it). Tests call it directly.
   */
  runOnce(limit = BACKFILL_PER_RUN): Promise<BackfillResult | null> {
    const provider = this.provider;
    if (provider === null) return Promise.resolve(null);
    const dedicated = this.config.databaseUrl !== null && this.config.databasePoolSize > 1;
    return this.flight.run(() => withBackfillLock(this.ds, dedicated, () => runBackfill(this.ds, this.repo, provider, { batchSize: this.config.embeddingBatchSize, limit })));
  }

  private async tick(): Promise<void> {
    try {
      const result = await this.runOnce();
      if (result === null || (result.embedded === 0 && result.empty === 0 && result.error === null)) return;
      if (result.error !== null) {
        const log = result.error.startsWith('configuration error') ? 'error' : 'warn';
        this.logger[log]({ err: { message: result.error }, embedded: result.embedded, remaining: result.remaining }, 'embedding backfill stopped; the next run retries');
      } else {
        this.logger.log({ embedded: result.embedded, empty: result.empty, remaining: result.remaining }, 'embedding backfill done');
      }
    } catch (err) {
      this.logger.warn({ err: { message: (err as Error).message } }, 'embedding backfill failed; the next run retries');
    }
  }
}
