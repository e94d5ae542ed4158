import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AdvisoryLock, tryXactLock } from 'src/common/db/advisory-locks';
import { OperatorScope, operatorScope } from 'src/common/db/tenant-scope';
import { SubjectLifecycleService } from 'src/modules/subjects/subject-lifecycle.service';
import { DEFAULT_CLEANUP_MAX_AGE_HOURS, DEFAULT_CLEANUP_PREFIX } from './dto/cleanup.dto';

/** Microseconds since the epoch of 0001-01-01T00:00:00Z, the earliest timestamptz we write. */
const EARLIEST_MS = -62_135_596_800_000;

/**
 * Stale subjects erased per transaction: each holds its subjects' compile locks until it
 * commits, and advisory locks share the server's lock table (max_locks_per_transaction).
 */
const CLEANUP_BATCH = 500;

/**
 * The contract's cleanup of stale `live_` subjects (POST /admin/cleanup and the hourly task).
 * Every subject is erased through SubjectLifecycleService under its compile lock, so a compile
 * in flight commits first and a subject that became active meanwhile is kept.
 */
@Injectable()
export class SnapshotsCleanupService {
  constructor(
    private readonly ds: DataSource,
    private readonly lifecycle: SubjectLifecycleService,
  ) {}

  /**
   * Deletes subjects starting with `prefix` whose newest episode or memory is older than
   * `maxAgeHours` (never `_snapshot/` ones): episodes, memories, compile jobs, resolutions and
   * cached health. An age reaching before year 1 matches nothing. Returns the subjects removed.
   */
  cleanup(scope: OperatorScope, prefix: string, maxAgeHours: number): Promise<number> {
    return this.run(scope, prefix, maxAgeHours, false).then((n) => n ?? 0);
  }

  /**
   * The hourly cleanup with the contract's defaults (prefix `live_`, 24 hours). Each batch runs
   * under the cluster's cleanup lock so that one replica does it; null when another holds it.
   */
  scheduledCleanup(): Promise<number | null> {
    return this.run(operatorScope(), DEFAULT_CLEANUP_PREFIX, DEFAULT_CLEANUP_MAX_AGE_HOURS, true);
  }

  private async run(scope: OperatorScope, prefix: string, maxAgeHours: number, clusterLock: boolean): Promise<number | null> {
    const cutoffMs = Date.now() - maxAgeHours * 3_600_000;
    if (!(cutoffMs > EARLIEST_MS)) return 0;
    const cutoff = new Date(cutoffMs);
    let erased = 0;
    let pending: Awaited<ReturnType<SubjectLifecycleService['staleSubjects']>> | null = null;
    for (;;) {
      const done = await this.ds.transaction(async (em: EntityManager) => {
        if (clusterLock && !(await tryXactLock(em, AdvisoryLock.SnapshotsCleanup))) return null;
        pending ??= await this.lifecycle.staleSubjects(em, scope, prefix, cutoff);
        for (const key of pending.splice(0, CLEANUP_BATCH)) if (await this.lifecycle.eraseIfStale(em, scope, key, cutoff)) erased++;
        return pending.length === 0;
      });
      if (done === null) return pending === null ? null : erased;
      if (done) return erased;
    }
  }
}
