import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import { AdvisoryLock, tryWithLock } from 'src/common/db/advisory-locks';
import { RequestContext } from 'src/common/context/request-context';
import { PollingLoop } from 'src/common/jobs/polling-loop';
import { observeCompile } from 'src/common/metrics/instrument';
import { operatorScope, TenantScope } from 'src/common/db/tenant-scope';
import { APP_CONFIG } from 'src/config/app-config';
import type { AppConfig } from 'src/config/app-config';
import { JOB_LEASE_MINUTES, JOB_LEASE_RENEW_MS, ORPHAN_MINUTES } from 'src/modules/ops/ops.service';
import { CompileJobSignal } from './compile-job-signal';
import { CompileJobsRepository } from './compile-jobs.repository';
import type { CompileJobRow } from 'src/modules/memories/compile-job.entity';
import { CompileService } from './compile.service';

/** A failure's message as stored in the job row (`error`); bounded, payload-free. */
const MAX_ERROR_CHARS = 2000;
const ORPHAN_SWEEP_MS = 5 * 60_000;
const RETENTION_SWEEP_MS = 60 * 60_000;

/** The job was reset as orphaned (and maybe retaken) or deleted while this run compiled it. */
class JobLostError extends Error {}

/**
 * Runs asynchronous compile jobs in every process (WORKERS_ENABLED). Jobs are claimed one at
 * a time with FOR UPDATE SKIP LOCKED, so processes share the queue and a process that dies
 * strands at most the one job it was running, which the orphan reset returns to `pending`.
 * A job compiles in one transaction with its completion, so its result and its memories
 * commit together; a failure rolls the compile back (episodes stay uncompiled) and records
 * `failed` with the error. Also runs the two maintenance tasks (orphans, retention).
 */
@Injectable()
export class CompileJobsWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('compile-jobs');
  /** The queue is every tenant's: a job carries its own tenant, and runs in that tenant's scope. */
  private readonly queue = operatorScope();
  private readonly poller: PollingLoop;
  private readonly maintenance = [
    PollingLoop.every('reset orphaned compile jobs', this.logger, ORPHAN_SWEEP_MS, () => this.resetOrphaned()),
    PollingLoop.every('delete expired compile jobs', this.logger, RETENTION_SWEEP_MS, () => this.deleteExpired()),
  ];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly ds: DataSource,
    private readonly jobs: CompileJobsRepository,
    private readonly pipeline: CompileService,
    signal: CompileJobSignal,
    /** The app's timer registry (@nestjs/schedule): the loops' sleeping timers are held there. */
    @Optional() private readonly schedules?: SchedulerRegistry,
  ) {
    // runOnce drains the queue, so every round ends with nothing due: always sleep after it.
    this.poller = new PollingLoop('compile job worker', this.logger, config.workerPollMs, async () => {
      await this.runOnce();
      return false;
    });
    signal.onQueued(() => this.poller.wake());
  }

  onApplicationBootstrap(): void {
    if (!this.config.workersEnabled) return;
    this.poller.start(this.schedules);
    for (const task of this.maintenance) task.start(this.schedules);
  }

  /** The job loop or a maintenance task is running (WORKERS_ENABLED at start-up). */
  get isRunning(): boolean {
    return [this.poller, ...this.maintenance].some((loop) => loop.isRunning);
  }

  /** Stops claiming and waits for the job in progress to finish (it commits or rolls back whole). */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([this.poller, ...this.maintenance].map((loop) => loop.stop()));
  }

  /**
   * Claims and runs pending jobs one by one until none is left (or shutdown begins); returns
   * how many ran. The loop calls it; tests call it directly (workers are off in tests).
   */
  async runOnce(): Promise<number> {
    let ran = 0;
    while (!this.poller.isStopping) {
      const [job] = await this.jobs.claim(this.ds.manager, this.queue, 1);
      if (!job) break;
      await this.runJob(job);
      ran++;
    }
    return ran;
  }

  /**
   * Contract: jobs `running` for over 30 minutes return to `pending` (every 5 minutes, one
   * replica). Returns the jobs put back; a no-op (empty) while another replica does the same.
   */
  async resetOrphaned(olderThanMinutes = ORPHAN_MINUTES): Promise<CompileJobRow[]> {
    const reset =
      (await tryWithLock(this.ds, AdvisoryLock.CompileJobsOrphans, (em) =>
        this.jobs.resetOrphaned(em, this.queue, olderThanMinutes, JOB_LEASE_MINUTES, this.config.compileJobMaxAttempts),
      )) ?? [];
    const failed = reset.filter((j) => j.status === 'failed');
    if (reset.length > failed.length) this.logger.warn({ job_ids: reset.filter((j) => j.status !== 'failed').map((j) => j.id) }, `reset ${reset.length - failed.length} orphaned compile job(s) to pending`);
    if (failed.length > 0) this.logger.error({ job_ids: failed.map((j) => j.id) }, `${failed.length} compile job(s) failed: their worker stopped ${this.config.compileJobMaxAttempts} times while running them`);
    return reset;
  }

  /** COMPILE_JOB_RETENTION_HOURS (0 keeps everything; hourly, one replica): deletes older finished jobs; returns how many. */
  async deleteExpired(): Promise<number> {
    const hours = this.config.compileJobRetentionHours;
    if (hours <= 0) return 0;
    const deleted = (await tryWithLock(this.ds, AdvisoryLock.CompileJobsRetention, (em) => this.jobs.deleteFinished(em, this.queue, hours))) ?? 0;
    if (deleted > 0) this.logger.log(`deleted ${deleted} compile job(s) older than ${hours} h`);
    return deleted;
  }

  private async runJob(job: CompileJobRow): Promise<void> {
    // The lease: renewed while the job runs, so the orphan reset never takes a live job (a slow
    // model may take longer than the 30 minutes after which a silent job counts as orphaned).
    // Best effort: on the embedded engine a renewal waits for the connection between rounds.
    const lease = setInterval(() => void this.jobs.renewLease(this.ds.manager, this.queue, job).catch(() => undefined), JOB_LEASE_RENEW_MS);
    lease.unref();
    try {
      await this.runJobInContext(job);
    } finally {
      clearInterval(lease);
    }
  }

  private async runJobInContext(job: CompileJobRow): Promise<void> {
    await RequestContext.run({ requestId: `job:${job.id}`, tenantId: job.tenant_id }, async () => {
      const scope = TenantScope.ofStored(job.tenant_id);
      try {
        const outcome = await observeCompile('async', job.id, () => this.pipeline.compileAndCommit(scope, job.subject_id, async (em, done) => {
          if (!(await this.jobs.complete(em, this.queue, job, done.echoed.map((r) => r.id), done.created))) throw new JobLostError();
        }));
        const created = outcome.created;
        this.logger.log({ job_id: job.id, memories_created: created }, 'compile job completed');
      } catch (err) {
        if (err instanceof JobLostError) {
          this.logger.warn({ job_id: job.id }, 'compile job changed hands while running; its work was rolled back');
          return;
        }
        const message = (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR_CHARS) || 'compile failed';
        this.logger.error({ job_id: job.id, err: { type: (err as Error)?.constructor?.name, message } }, 'compile job failed');
        await this.jobs.fail(this.ds.manager, this.queue, job, message);
      }
    });
  }
}
